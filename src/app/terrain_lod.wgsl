// Terrain level of detail (SPEC §3): every vertex morphs towards its parent level's surface
// (height, normal, colour) over the outer part of its level's range. The same function runs in
// the main pass and in the prepass/shadow passes, with the main camera's position
// (`view.lod_view_world_position`, which Bevy sets to the camera for shadow cascades too), so
// shadows see the geometry that is drawn. The CPU copy of the morph factor is
// `world::lod::LodRanges::morph`.

#import bevy_pbr::{
    mesh_functions,
    mesh_view_bindings::view,
    view_transformations::position_world_to_clip,
}
#ifdef PREPASS_PIPELINE
#import bevy_pbr::prepass_io::VertexOutput
#else
#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    pbr_fragment::pbr_input_from_standard_material,
    pbr_functions::{alpha_discard, apply_pbr_lighting, main_pass_post_lighting_processing},
    pbr_types::STANDARD_MATERIAL_FLAGS_UNLIT_BIT,
}
#endif

struct LodParams {
    // x: morph start (m), y: morph end (m), z: level, w: unused.
    morph: vec4<f32>,
    // Multiplies the vertex colour (white unless the level colours are shown).
    tint: vec4<f32>,
    // Ambient from the sky (SPEC §5): the sky's half facing up, the ground's facing down.
    ambient_up: vec4<f32>,
    ambient_down: vec4<f32>,
}
@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<uniform> lod: LodParams;

struct Vertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) position: vec3<f32>,
#ifdef PREPASS_PIPELINE
#ifdef NORMAL_PREPASS_OR_DEFERRED_PREPASS
#ifdef VERTEX_NORMALS
    @location(3) normal: vec3<f32>,
#endif
#endif
#ifdef VERTEX_COLORS
    @location(7) color: vec4<f32>,
#endif
#else
#ifdef VERTEX_NORMALS
    @location(1) normal: vec3<f32>,
#endif
#ifdef VERTEX_COLORS
    @location(5) color: vec4<f32>,
#endif
#endif
    // Parent surface at this vertex: height, normal.
    @location(8) morph: vec4<f32>,
    // Parent colour at this vertex.
    @location(9) morph_color: vec4<f32>,
};

@vertex
fn vertex(v: Vertex) -> VertexOutput {
    var out: VertexOutput;
    let world_from_local = mesh_functions::get_world_from_local(v.instance_index);
    let p0 = mesh_functions::mesh_position_local_to_world(world_from_local, vec4<f32>(v.position, 1.0));
    let d = distance(p0.xyz, view.lod_view_world_position);
    let k = clamp((d - lod.morph.x) / (lod.morph.y - lod.morph.x), 0.0, 1.0);
    var local = v.position;
    // Fully morphed is exactly the parent's surface (no rounding through mix).
    if k >= 1.0 {
        local.y = v.morph.x;
    } else {
        local.y = mix(v.position.y, v.morph.x, k);
    }
    out.world_position = mesh_functions::mesh_position_local_to_world(world_from_local, vec4<f32>(local, 1.0));
    out.position = position_world_to_clip(out.world_position.xyz);
#ifdef PREPASS_PIPELINE
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    out.unclipped_depth = out.position.z;
    out.position.z = min(out.position.z, 1.0);
#endif
#ifdef NORMAL_PREPASS_OR_DEFERRED_PREPASS
#ifdef VERTEX_NORMALS
    out.world_normal = mesh_functions::mesh_normal_local_to_world(normalize(mix(v.normal, v.morph.yzw, k)), v.instance_index);
#endif
#endif
#ifdef MOTION_VECTOR_PREPASS
    out.previous_world_position = mesh_functions::mesh_position_local_to_world(
        mesh_functions::get_previous_world_from_local(v.instance_index), vec4<f32>(local, 1.0));
#endif
#else
#ifdef VERTEX_NORMALS
    out.world_normal = mesh_functions::mesh_normal_local_to_world(normalize(mix(v.normal, v.morph.yzw, k)), v.instance_index);
#endif
#endif
#ifdef VERTEX_COLORS
    out.color = mix(v.color, v.morph_color, k) * lod.tint;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = v.instance_index;
#endif
#ifdef VISIBILITY_RANGE_DITHER
    out.visibility_range_dither = mesh_functions::get_visibility_range_dither_level(v.instance_index, world_from_local[3]);
#endif
    return out;
}

#ifndef PREPASS_PIPELINE
// Bevy's StandardMaterial fragment with the flat ambient replaced by the sky's hemisphere:
// mix(down, up, 0.5 + 0.5 n.y) on the diffuse colour, occluded as Bevy's ambient is, added as
// exposure-scaled emission.
@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) is_front: bool) -> FragmentOutput {
    var pbr_input = pbr_input_from_standard_material(in, is_front);
    pbr_input.material.base_color = alpha_discard(pbr_input.material, pbr_input.material.base_color);
    var out: FragmentOutput;
    if (pbr_input.material.flags & STANDARD_MATERIAL_FLAGS_UNLIT_BIT) == 0u {
        let hemi = mix(lod.ambient_down.rgb, lod.ambient_up.rgb, 0.5 + 0.5 * pbr_input.N.y);
        let diffuse = pbr_input.material.base_color.rgb * (1.0 - pbr_input.material.metallic);
        pbr_input.material.emissive = vec4<f32>(
            pbr_input.material.emissive.rgb + diffuse * hemi * pbr_input.diffuse_occlusion, 1.0);
        pbr_input.diffuse_occlusion = vec3<f32>(0.0);
        out.color = apply_pbr_lighting(pbr_input);
    } else {
        out.color = pbr_input.material.base_color;
    }
    out.color = main_pass_post_lighting_processing(pbr_input, out.color);
    return out;
}
#endif
