// Isla's procedural sky dome (SPEC §5): the shared sky function (sky_common.wgsl), tone-mapped
// like the lit scene so fogged geometry meets it at the horizon without a seam.
#import bevy_pbr::{forward_io::VertexOutput, mesh_view_bindings::{view, lights}}
#import isla::sky::{SkyParams, sky_radiance, horizon_haze}
#ifdef DISTANCE_FOG
#import bevy_pbr::mesh_view_bindings::fog
#endif
#ifdef TONEMAP_IN_SHADER
#import bevy_core_pipeline::tonemapping::tone_mapping
#endif

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> p: SkyParams;

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    let d = normalize(in.world_position.xyz - view.world_position);
    var c = vec4<f32>(sky_radiance(p, d), 1.0);
#ifdef DISTANCE_FOG
    // Aerial perspective: the fog's inscattering toward the sun, exactly as Bevy adds it to fully
    // fogged geometry (pbr_functions::apply_fog, without the shadow term: the sky is lit), faded
    // out above the horizon as the horizon colour itself is, so sea and sky still meet.
    if (fog.directional_light_color.a > 0.0 && lights.n_directional_lights > 0u) {
        let light = lights.directional_lights[0];
        let s = pow(max(dot(d, light.direction_to_light), 0.0), fog.directional_light_exponent)
            * light.color.rgb * view.exposure;
        c = vec4<f32>(c.rgb + horizon_haze(p, d, s * fog.directional_light_color.rgb * fog.directional_light_color.a), 1.0);
    }
#endif
#ifdef TONEMAP_IN_SHADER
    c = tone_mapping(c, view.color_grading);
#endif
    return c;
}
