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
    // x: sea level (m), y: sand band above it (m), z: rock slope, w: rock blend half-width.
    surface: vec4<f32>,
    sand: vec4<f32>,
    rock: vec4<f32>,
    // rgb: snow colour; w: the snow line (m).
    snow: vec4<f32>,
    // The roads' paint (linear): asphalt on highways, gravel on roads.
    asphalt: vec4<f32>,
    gravel: vec4<f32>,
    // A far-field page's textures (mesh::far_field, app::far_field): x a tile's side (m), z the
    // texel spacing (m), w texels a side. Its level's own, and its parent level's over a tile.
    own_grid: vec4<f32>,
    parent_grid: vec4<f32>,
    // x: a chunk's side (m): a node of this level is x · 2^level a side.
    node: vec4<f32>,
}
@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<uniform> lod: LodParams;
// A page's texture arrays: a tile's layer, and its index on its level's grid of tiles, are in its
// mesh tag (`app::far_field::tile_tag`).
@group(#{MATERIAL_BIND_GROUP}) @binding(101) var own_colour: texture_2d_array<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(102) var far_sampler: sampler;
@group(#{MATERIAL_BIND_GROUP}) @binding(103) var own_normal: texture_2d_array<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(104) var parent_colour: texture_2d_array<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(105) var parent_normal: texture_2d_array<f32>;

struct Vertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) position: vec3<f32>,
#ifdef PREPASS_PIPELINE
#ifdef VERTEX_UVS_A
    // A Marching Cubes chunk's paint field: x the distance (columns) to the nearest paint edge,
    // negative on the paint; y 1 + the paint's tier (0 highway, 1 road).
    @location(1) paint: vec2<f32>,
#endif
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
#ifdef VERTEX_UVS_A
    @location(2) paint: vec2<f32>,
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

const PIN_COARSER: u32 = 1u;
const PIN_FINER: u32 = 2u;

// The border pin holding a point at world `xz` of the node whose tag is `tag`
// (world::display::pin_at): 0 off its border or on an unpinned side, else the side's pin, a
// corner on two sides taking the coarser one.
fn pin_at(tag: u32, xz: vec2<f32>) -> u32 {
    let pins = tag >> 24u;
    if pins == 0u {
        return 0u;
    }
    let side = lod.node.x * exp2(lod.morph.z);
    let lo = vec2<f32>(f32((tag >> 4u) & 0x3ffu), f32((tag >> 14u) & 0x3ffu)) * side;
    let hi = lo + vec2<f32>(side);
    let eps = 0.01;
    // Side s (0: low x, 1: high x, 2: low z, 3: high z) holds pin bits 2s..2s+2.
    let pin = vec4<u32>(pins & 3u, (pins >> 2u) & 3u, (pins >> 4u) & 3u, (pins >> 6u) & 3u);
    let on = vec4<bool>(abs(xz.x - lo.x) < eps, abs(xz.x - hi.x) < eps, abs(xz.y - lo.y) < eps, abs(xz.y - hi.y) < eps);
    if any(on & (pin == vec4<u32>(PIN_COARSER))) {
        return PIN_COARSER;
    }
    if any(on & (pin == vec4<u32>(PIN_FINER))) {
        return PIN_FINER;
    }
    return 0u;
}

@vertex
fn vertex(v: Vertex) -> VertexOutput {
    var out: VertexOutput;
    let world_from_local = mesh_functions::get_world_from_local(v.instance_index);
    let p0 = mesh_functions::mesh_position_local_to_world(world_from_local, vec4<f32>(v.position, 1.0));
    let d = distance(p0.xyz, view.lod_view_world_position);
    var k = clamp((d - lod.morph.x) / (lod.morph.y - lod.morph.x), 0.0, 1.0);
    // Border pins (world::display::pinned_morph, the same rule): the tag's top byte says, per
    // side, whether a coarser node is across (morph fully) or a finer one (do not morph), so a
    // node kept from the last screen and its new neighbour meet whatever the distance says.
    let tag = mesh_functions::get_tag(v.instance_index);
    let pin = pin_at(tag, p0.xz);
    if pin == PIN_COARSER {
        k = 1.0;
    } else if pin == PIN_FINER {
        k = 0.0;
    }
    var local = v.position;
    // Fully morphed is exactly the parent's surface (no rounding through mix).
    if k >= 1.0 {
        local.y = v.morph.x;
    } else {
        local.y = mix(v.position.y, v.morph.x, k);
    }
    // A T-junction fill vertex (mesh::lod::push_fill) is a copy of its border segment's first
    // vertex, so its triangles have no area, with its own place in its morph colour. On a side
    // pinned finer it stands there, unmorphed as that side is, and closes the T-junctions.
    if v.morph_color.w > 1.5 && pin_at(tag, v.morph_color.xz) == PIN_FINER {
        local = v.morph_color.xyz;
        k = 0.0;
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
    if lod.morph.w > 0.5 {
        // A textured coarse tile: the fragment reads its colour from the textures and needs
        // only the morph factor, carried in alpha.
        out.color = vec4<f32>(1.0, 1.0, 1.0, k);
    } else {
        out.color = mix(v.color, v.morph_color, k) * lod.tint;
    }
#endif
#ifdef VERTEX_UVS_A
    out.uv = v.paint;
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
// Value noise in 0..1 on a unit lattice (integer hash, smooth interpolation): the same at every
// level of detail, because it reads world positions only.
fn hash2(p: vec2<i32>) -> f32 {
    var h = u32(p.x) * 0x8da6b343u ^ u32(p.y) * 0xd8163841u;
    h = (h ^ (h >> 13u)) * 0x5bd1e995u;
    h = h ^ (h >> 15u);
    return f32(h & 0xffffu) / 65535.0;
}
fn value_noise(x: vec2<f32>) -> f32 {
    let i = vec2<i32>(floor(x));
    let f = fract(x);
    let u = f * f * (3.0 - 2.0 * f);
    let a = hash2(i);
    let b = hash2(i + vec2<i32>(1, 0));
    let c = hash2(i + vec2<i32>(0, 1));
    let d = hash2(i + vec2<i32>(1, 1));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}
// Two octaves, about 7 m and 29 m, centred on 0 (−0.5..0.5).
fn ground_noise(xz: vec2<f32>) -> f32 {
    return 0.35 * value_noise(xz / 7.0) + 0.65 * value_noise(xz / 29.0 + vec2<f32>(17.3, 5.1)) - 0.5;
}

// SPEC §4 "Materials", per pixel: the vertex colour is the biome's ground cover; sand covers the
// band just above the waterline, bare rock the steep slopes and snow the gentle ones above the
// snow line, every threshold moved by noise so no boundary follows the column grid. Below the sea
// the seabed keeps its colour.
fn surface_colour(cover: vec3<f32>, p: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let noise = ground_noise(p.xz);
    let above = p.y - lod.surface.x;
    let band = lod.surface.y * (1.0 + 0.8 * noise);
    let sand = (1.0 - smoothstep(band - 0.6, band + 0.6, above)) * smoothstep(-1.2, -0.4, above);
    // The cover arrives tinted by the level-colour view; tint sand and rock alike.
    var c = mix(cover, lod.sand.rgb * lod.tint.rgb, sand);
    let ny = max(abs(n.y), 1e-3);
    let slope = sqrt(max(1.0 - ny * ny, 0.0)) / ny;
    let edge = lod.surface.z + 0.35 * noise;
    let rock = smoothstep(edge - lod.surface.w, edge + lod.surface.w, slope) * smoothstep(-2.0, -0.5, above);
    c = mix(c, lod.rock.rgb * lod.tint.rgb * (0.9 + 0.25 * noise), rock);
    // Snow above the snow line (moved ±12 m by the noise), on all but steep slopes.
    let line = lod.snow.w + 25.0 * noise;
    let snow = smoothstep(line - 8.0, line + 8.0, p.y) * (1.0 - smoothstep(0.75, 1.15, slope + 0.3 * noise));
    return mix(c, lod.snow.rgb * lod.tint.rgb, snow);
}

// A corner-sampled far-field texture's UV at world xz, `xz - origin` from the tile's corner
// (texel t sits on the corner + t · spacing).
fn grid_uv(grid: vec4<f32>, local: vec2<f32>) -> vec2<f32> {
    return (local / grid.z + 0.5) / grid.w;
}

// Bevy's StandardMaterial fragment with the flat ambient replaced by the sky's hemisphere:
// mix(down, up, 0.5 + 0.5 n.y) on the diffuse colour, occluded as Bevy's ambient is, added as
// exposure-scaled emission.
@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) is_front: bool) -> FragmentOutput {
    var pbr_input = pbr_input_from_standard_material(in, is_front);
    pbr_input.material.base_color = alpha_discard(pbr_input.material, pbr_input.material.base_color);
#ifdef VERTEX_UVS_A
    // The paint field's change over one screen pixel (in uniform control flow): the paint edge
    // is antialiased over it.
    let paint_blur = max(fwidth(in.uv.x), 1e-3);
#endif
    var out: FragmentOutput;
    var textured = false;
    if lod.morph.w > 0.5 {
        // A coarse tile: colour and normal per pixel from its own level's textures, blended
        // towards its parent level's by the morph factor, as its vertices are.
        textured = true;
        // The tag: bits 0-3 the layer, 4-13 the tile's X index, 14-23 its Z index.
        let tag = mesh_functions::get_tag(in.instance_index);
        let layer = tag & 15u;
        let corner = vec2<f32>(f32((tag >> 4u) & 0x3ffu), f32((tag >> 14u) & 0x3ffu)) * lod.own_grid.x;
        let local = in.world_position.xz - corner;
        let k = in.color.a;
        let uv = grid_uv(lod.own_grid, local);
        var c = textureSampleLevel(own_colour, far_sampler, uv, layer, 0.0).rgb;
        var n = textureSampleLevel(own_normal, far_sampler, uv, layer, 0.0).xyz;
        if k > 0.0 {
            let puv = grid_uv(lod.parent_grid, local);
            c = mix(c, textureSampleLevel(parent_colour, far_sampler, puv, layer, 0.0).rgb, k);
            n = mix(n, textureSampleLevel(parent_normal, far_sampler, puv, layer, 0.0).xyz, k);
        }
        var nrm = normalize(n * 2.0 - 1.0);
        pbr_input.N = nrm;
        pbr_input.world_normal = nrm;
        pbr_input.material.base_color = vec4<f32>(c * lod.tint.rgb, 1.0);
    }
    if (pbr_input.material.flags & STANDARD_MATERIAL_FLAGS_UNLIT_BIT) == 0u {
        if !textured {
            // The vertex alpha is the natural ground's weight: 0 on a level-0 chunk's morph
            // target (the level-1 texture's final colour), 1 elsewhere; the output is opaque.
            let cover = pbr_input.material.base_color.rgb;
            let natural = pbr_input.material.base_color.a;
            let ground = surface_colour(cover, in.world_position.xyz, pbr_input.N);
            var c = mix(cover, ground, natural);
#ifdef VERTEX_UVS_A
            // The roads' paint, where the interpolated field is ≤ 0: a straight edge between
            // columns, one pixel wide of antialiasing. It fades with the morph as the natural
            // ground does (the morph target's colour already holds the road).
            let paved = clamp(0.5 - in.uv.x / paint_blur, 0.0, 1.0) * natural;
            let road = mix(lod.asphalt.rgb, lod.gravel.rgb, clamp(in.uv.y - 1.0, 0.0, 1.0)) * lod.tint.rgb;
            c = mix(c, road, paved);
#endif
            pbr_input.material.base_color = vec4<f32>(c, 1.0);
        }
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
