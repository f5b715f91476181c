// The water sheet (SPEC §5): the depth ramp (vertex colour and alpha) lit as the body, plus the
// procedural sky mirrored with Schlick's Fresnel term and the sun's glint, from a weakly perturbed
// normal (no geometric waves). Premultiplied alpha: body × alpha × (1 − F) + sky × F.
#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    mesh_view_bindings::{view, lights},
    pbr_fragment::pbr_input_from_standard_material,
    pbr_functions::{apply_pbr_lighting, main_pass_post_lighting_processing},
}
#import isla::sky::{SkyParams, sky_radiance, horizon_haze}
#ifdef DISTANCE_FOG
#import bevy_pbr::mesh_view_bindings::fog
#endif

@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<uniform> sky: SkyParams;

// Water's reflectance looking straight down: Schlick's F0 for air to water (n = 1.33).
const F0: f32 = 0.02;

// A calm surface's slope: a few crossed sines of 9–40 m, slopes of a few hundredths, fading out
// out over 1.2 km so far water does not shimmer between pixels.
fn ripple(xz: vec2<f32>, dist: f32) -> vec2<f32> {
    let fade = clamp(1.0 - dist / 1200.0, 0.0, 1.0);
    var g = vec2<f32>(0.0);
    g += 0.020 * cos(dot(xz, vec2<f32>(0.157, 0.041)) + 1.3) * vec2<f32>(0.157, 0.041) / 0.162;
    g += 0.016 * cos(dot(xz, vec2<f32>(-0.083, 0.211)) + 4.1) * vec2<f32>(-0.083, 0.211) / 0.227;
    g += 0.012 * cos(dot(xz, vec2<f32>(0.52, -0.39)) + 2.2) * vec2<f32>(0.52, -0.39) / 0.65;
    g += 0.008 * cos(dot(xz, vec2<f32>(-0.61, -0.47)) + 0.7) * vec2<f32>(-0.61, -0.47) / 0.77;
    return g * fade;
}

@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) is_front: bool) -> FragmentOutput {
    var pbr_input = pbr_input_from_standard_material(in, is_front);
    let to_eye = view.world_position - in.world_position.xyz;
    let dist = length(to_eye);
    let v = to_eye / dist;
    let above = to_eye.y > 0.0;
    let g = ripple(in.world_position.xz, dist);
    let up = select(-1.0, 1.0, above);
    let n = normalize(vec3<f32>(-g.x, up, -g.y));
    pbr_input.N = n;
    let body = apply_pbr_lighting(pbr_input);

    // From above: the sky mirrored (its reflection kept above the horizon), weighted by Fresnel.
    // From below the surface shows only its body.
    var f = 0.0;
    var reflected = vec3<f32>(0.0);
    if (above) {
        let cos_v = clamp(dot(n, v), 0.0, 1.0);
        f = F0 + (1.0 - F0) * pow(1.0 - cos_v, 5.0);
        let r = reflect(-v, n);
        let rd = normalize(vec3<f32>(r.x, max(r.y, 0.0), r.z));
        reflected = sky_radiance(sky, rd);
#ifdef DISTANCE_FOG
        // The mirrored sky includes the haze toward the sun, as the dome draws it.
        if (fog.directional_light_color.a > 0.0 && lights.n_directional_lights > 0u) {
            let light = lights.directional_lights[0];
            let s = pow(max(dot(rd, light.direction_to_light), 0.0), fog.directional_light_exponent)
                * light.color.rgb * view.exposure;
            reflected += horizon_haze(sky, rd, s * fog.directional_light_color.rgb * fog.directional_light_color.a);
        }
#endif
        // The sun's glint: a tight highlight on the perturbed normal.
        let glint = pow(max(dot(r, normalize(sky.sun.xyz)), 0.0), 900.0);
        reflected += sky.sun_colour.rgb * glint * 6.0;
    }
    let a = body.a * (1.0 - f) + f;
    // Fog and tone mapping work on the straight colour; premultiply after.
    let straight = (body.rgb * body.a * (1.0 - f) + reflected * f) / max(a, 1e-4);
    var out: FragmentOutput;
    let post = main_pass_post_lighting_processing(pbr_input, vec4<f32>(straight, a));
    out.color = vec4<f32>(post.rgb * a, a);
    return out;
}
