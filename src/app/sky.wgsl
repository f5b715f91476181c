// Isla's procedural sky dome (SPEC §5): the shared sky function (sky_common.wgsl), tone-mapped
// like the lit scene so fogged geometry meets it at the horizon without a seam.
#import bevy_pbr::{forward_io::VertexOutput, mesh_view_bindings::view}
#import isla::sky::{SkyParams, sky_radiance}
#ifdef TONEMAP_IN_SHADER
#import bevy_core_pipeline::tonemapping::tone_mapping
#endif

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> p: SkyParams;

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    let d = normalize(in.world_position.xyz - view.world_position);
    var c = vec4<f32>(sky_radiance(p, d), 1.0);
#ifdef TONEMAP_IN_SHADER
    c = tone_mapping(c, view.color_grading);
#endif
    return c;
}
