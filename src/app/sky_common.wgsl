// The procedural sky as a function, shared by the sky dome (sky.wgsl) and the water's reflection
// (water.wgsl). Godot's ProceduralSkyMaterial for the reference values; mirrors `sky_colour` in
// sky.rs line by line. Returns linear radiance before tone mapping.
#define_import_path isla::sky

struct SkyParams {
    zenith: vec4<f32>,
    horizon: vec4<f32>,
    ground_horizon: vec4<f32>,
    ground_bottom: vec4<f32>,
    // The sun light's colour × energy.
    sun_colour: vec4<f32>,
    // xyz: unit vector towards the sun; w: end of its glow (sun_angle_max) in radians.
    sun: vec4<f32>,
    // x: sky curve, y: ground curve, z: sun curve, w: below-horizon haze (fraction of 90°).
    curves: vec4<f32>,
    // x: the sun's angular size in radians; y: how far below the horizon (fraction of 90°) the
    // open sea's far edge lies from the camera, where the below-horizon haze begins.
    sun_size: vec4<f32>,
}

// Godot's ease: clamp(1 − (1 − t)^(1/c), 0, 1).
fn ease(t: f32, c: f32) -> f32 {
    return clamp(1.0 - pow(1.0 - clamp(t, 0.0, 1.0), 1.0 / c), 0.0, 1.0);
}

// The sky's gradient and the sun's glow along unit direction `d`.
fn sky_radiance(p: SkyParams, d: vec3<f32>) -> vec3<f32> {
    let e = asin(clamp(d.y, -1.0, 1.0)) / 1.5707964;
    var sky = mix(p.horizon.rgb, p.zenith.rgb, ease(e, p.curves.x));
    let theta = acos(clamp(dot(d, normalize(p.sun.xyz)), -1.0, 1.0));
    let size = p.sun_size.x;
    if (theta < size) {
        sky = p.sun_colour.rgb;
    } else if (theta < p.sun.w) {
        sky = mix(p.sun_colour.rgb, sky, ease((theta - size) / (p.sun.w - size), p.curves.z));
    }
    if (e >= 0.0) {
        return sky;
    }
    let ground = mix(p.ground_horizon.rgb, p.ground_bottom.rgb, ease(-e, p.curves.y));
    // The haze starts at the open sea's far edge, not at the horizon: down to that edge the
    // dome stands in for fully fogged sea, which is the horizon colour.
    return mix(p.horizon.rgb, ground, clamp((-e - p.sun_size.y) / p.curves.w, 0.0, 1.0));
}

// Aerial perspective at the horizon: `scatter` is the fog's inscattering toward the sun as Bevy
// adds it to fully fogged geometry (pow(cos θ, exponent) × light colour × exposure × the fog's
// directional colour and weight), faded out above the horizon as the horizon colour itself is.
fn horizon_haze(p: SkyParams, d: vec3<f32>, scatter: vec3<f32>) -> vec3<f32> {
    let e = asin(clamp(d.y, -1.0, 1.0)) / 1.5707964;
    return scatter * (1.0 - ease(max(e, 0.0), p.curves.x));
}
