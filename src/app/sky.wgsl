// Isla's procedural sky (SPEC §5): zenith → horizon → ground gradient with a sun disc, evaluated
// per pixel along the view direction. Mirrors `sky_colour` in sky.rs: the same blends in the same (sRGB) space.
#import bevy_pbr::{forward_io::VertexOutput, mesh_view_bindings::view}

struct SkyParams {
    zenith: vec4<f32>,
    horizon: vec4<f32>,
    ground_horizon: vec4<f32>,
    ground_bottom: vec4<f32>,
    sun_colour: vec4<f32>,
    // xyz: unit vector towards the sun; w: sun disc radius in radians.
    sun: vec4<f32>,
    // x: sky curve, y: ground curve, z: sun curve, w: below-horizon haze (fraction of 90°).
    curves: vec4<f32>,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> p: SkyParams;

// sRGB → linear (the colours are blended in sRGB, as on the CPU side).
fn to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

// 1 − (1 − t)^(1/c): fast rise, long tail.
fn ease_out(t: f32, c: f32) -> f32 {
    return 1.0 - pow(1.0 - clamp(t, 0.0, 1.0), 1.0 / c);
}

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    let d = normalize(in.world_position.xyz - view.world_position);
    let a = asin(clamp(d.y, -1.0, 1.0)) / 1.5707964;
    var c: vec3<f32>;
    if (a >= 0.0) {
        c = mix(p.horizon.rgb, p.zenith.rgb, ease_out(a, p.curves.x));
    } else {
        let ground = mix(p.ground_horizon.rgb, p.ground_bottom.rgb, ease_out(-a, p.curves.y));
        c = mix(p.horizon.rgb, ground, min(-a / p.curves.w, 1.0));
    }
    let sun_angle = acos(clamp(dot(d, normalize(p.sun.xyz)), -1.0, 1.0));
    if (sun_angle < p.sun.w && d.y > -0.02) {
        let t = pow(ease_out(1.0 - sun_angle / p.sun.w, p.curves.z), 4.0);
        c = mix(c, p.sun_colour.rgb, t);
    }
    return vec4<f32>(to_linear(c), 1.0);
}
