// The water sheet (SPEC §5): the depth ramp lit as the body — per pixel from the depth prepass
// (true depth and the view ray's path under each pixel, shoreline foam), or the sheet's per-cell
// vertex colour and alpha in the debug views — plus the procedural sky mirrored with Schlick's
// Fresnel term and the sun's glint, from a weakly perturbed normal (no geometric waves).
// Premultiplied alpha: body × alpha × (1 − F) + sky × F.
#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    mesh_view_bindings::{view, lights},
    pbr_fragment::pbr_input_from_standard_material,
    pbr_functions::{apply_pbr_lighting, main_pass_post_lighting_processing},
}
#import isla::sky::{SkyParams, sky_radiance, horizon_haze}
#import bevy_pbr::view_transformations::{frag_coord_to_ndc, position_ndc_to_world}
#ifdef DEPTH_PREPASS
#import bevy_pbr::prepass_utils::prepass_depth
#endif
#ifdef DISTANCE_FOG
#import bevy_pbr::mesh_view_bindings::fog
#endif

@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<uniform> sky: SkyParams;

// `app::water::WaterShading`: the SPEC §4 ramp's ends (sRGB, alpha); params x: per pixel on,
// y: ramp depth, z: absorption length, w: foam depth; lengths x: the depth the floor shows
// through, y, z: foam band start and full, w: foam fade distance (metres).
struct WaterShading {
    shallow: vec4<f32>,
    deep: vec4<f32>,
    params: vec4<f32>,
    lengths: vec4<f32>,
}
@group(#{MATERIAL_BIND_GROUP}) @binding(101) var<uniform> body_params: WaterShading;
// `app::water::WaterExt::plane`: x 1 = a flat sheet at y = plane.y whose point each pixel finds
// from its own view ray (the open sea), 0 = where the rasteriser interpolates the sheet.
@group(#{MATERIAL_BIND_GROUP}) @binding(102) var<uniform> plane: vec4<f32>;

// The sheet's point under this pixel. On the open sea, the pixel's own view ray meets the plane:
// nothing depends on how large a triangle the rasteriser interpolated, or how it clipped it.
fn surface_point(in: VertexOutput) -> vec3<f32> {
    if (plane.x > 0.5) {
        let near = position_ndc_to_world(vec3<f32>(frag_coord_to_ndc(in.position).xy, 1.0));
        let ray = near - view.world_position;
        let t = (plane.y - view.world_position.y) / ray.y;
        if (t > 0.0 && abs(ray.y) > 1e-12) {
            return view.world_position + ray * t;
        }
    }
    return in.world_position.xyz;
}

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

// The SPEC §4 ramp at true depth `d`: mixed in sRGB, as `mesh::water::water_colour` does.
fn ramp(d: f32) -> vec4<f32> {
    let t = smoothstep(0.0, body_params.params.y, d);
    let c = mix(body_params.shallow, body_params.deep, t);
    return vec4<f32>(srgb_to_linear(c.rgb), c.a);
}

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
    let at = surface_point(in);
    pbr_input.world_position = vec4<f32>(at, 1.0);
    let to_eye = view.world_position - at;
    let dist = length(to_eye);
    let v = to_eye / dist;
    let above = to_eye.y > 0.0;
    pbr_input.V = to_eye / dist;
    let g = ripple(at.xz, dist);
    let up = select(-1.0, 1.0, above);
    let n = normalize(vec3<f32>(-g.x, up, -g.y));
    pbr_input.N = n;
#ifdef DEPTH_PREPASS
    // Per pixel, from above: the opaque point behind this pixel gives the true depth and the view
    // ray's path through the water. Nothing behind (the sky) keeps the sheet's own colour.
    // Reverse Z: the opaque point must lie behind the water (a smaller depth). With MSAA the one
    // sample read can be the land in front at a silhouette: such a pixel keeps the sheet's colour.
    let behind = prepass_depth(in.position, 0u);
    if (above && body_params.params.x > 0.5 && behind > 0.0 && behind < in.position.z) {
        let ndc = frag_coord_to_ndc(in.position);
        let floor = position_ndc_to_world(vec3<f32>(ndc.xy, behind));
        let depth = max(at.y - floor.y, 0.0);
        let path = distance(floor, at);
        let c = ramp(depth);
        // The first metre or two of water lets the floor through, so the shallows show their
        // bed and the waterline is not a drawn edge; below that the ramp holds looking straight
        // down, and a slanted ray, crossing more water, absorbs more (Beer–Lambert).
        let thin = 1.0 - exp(-path / body_params.lengths.x);
        let alpha = 1.0 - (1.0 - c.a * thin) * exp(-max(path - depth, 0.0) / body_params.params.z);
        // Foam: a band along the shallowest water, broken into patches some 20 m long and into
        // lines that follow the depth contours; fixed in place (the water is at rest).
        let l = body_params.lengths;
        let band = smoothstep(0.0, l.y, depth) * (1.0 - smoothstep(l.z, max(body_params.params.w, l.z + 0.01), depth))
            * (1.0 - smoothstep(0.5 * l.w, l.w, dist));
        let xz = at.xz;
        let patches = 0.5 + 0.3 * sin(dot(xz, vec2<f32>(0.23, 0.11)))
            + 0.2 * sin(dot(xz, vec2<f32>(-0.09, 0.31)) + 1.7);
        let lines = 0.5 + 0.5 * sin(depth * 45.0 + patches * 6.0);
        let foam = 0.85 * band * smoothstep(0.25, 0.6, patches) * (0.55 + 0.45 * lines);
        pbr_input.material.base_color = vec4<f32>(mix(c.rgb, vec3<f32>(0.82, 0.86, 0.88), foam), max(alpha, 0.9 * foam));
    }
#endif
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
