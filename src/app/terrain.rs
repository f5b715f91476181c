//! The terrain's level-of-detail material (SPEC §3, §5): Bevy's `StandardMaterial` extended
//! with the morph towards the parent level (`terrain_lod.wgsl`), the sky's hemispheric ambient,
//! the per-pixel ground rules and a coarse tile's far-field textures (`super::far_field`). One
//! per level, shared by its Marching Cubes chunks or untextured tiles; a far-field page's is a
//! copy of its level's with the page's texture arrays.

use crate::world::lod::LodRanges;
use bevy::mesh::{MeshVertexAttribute, MeshVertexBufferLayoutRef, VertexFormat};
use bevy::pbr::{ExtendedMaterial, MaterialExtension, MaterialExtensionKey, MaterialExtensionPipeline};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, RenderPipelineDescriptor, SpecializedMeshPipelineError};
use bevy::shader::ShaderRef;

/// Per vertex: the parent level's height and normal (`[y, nx, ny, nz]`).
pub const ATTRIBUTE_LOD_MORPH: MeshVertexAttribute =
    MeshVertexAttribute::new("Lod_Morph", 2_817_364_901, VertexFormat::Float32x4);
/// Per vertex: the parent level's colour (linear RGBA).
pub const ATTRIBUTE_LOD_MORPH_COLOR: MeshVertexAttribute =
    MeshVertexAttribute::new("Lod_MorphColor", 2_817_364_902, VertexFormat::Float32x4);

const LOD_SHADER: &str = "embedded://isla/app/terrain_lod.wgsl";

/// The level-of-detail extension of the terrain's `StandardMaterial`: one per level, holding
/// that level's morph band (and the debug tint).
#[derive(Asset, AsBindGroup, TypePath, Debug, Clone)]
pub struct LodExt {
    /// x: morph start (m), y: morph end (m), z: level.
    #[uniform(100)]
    pub morph: Vec4,
    /// Multiplies the vertex colour: white, or the level's colour with the LOD view on.
    #[uniform(100)]
    pub tint: Vec4,
    /// Ambient from the sky (`scene::hemisphere_ambient`): the sky half, facing up.
    #[uniform(100)]
    pub ambient_up: Vec4,
    /// The ground half, facing down.
    #[uniform(100)]
    pub ambient_down: Vec4,
    /// Per-pixel materials: x the sea level (m), y the sand band's height above it (m), z the
    /// rock slope (rise over run), w the blend half-width of the rock slope.
    #[uniform(100)]
    pub surface: Vec4,
    /// Linear colours of sand and bare rock (the palette's).
    #[uniform(100)]
    pub sand: Vec4,
    #[uniform(100)]
    pub rock: Vec4,
    /// Snow: linear colour, w the snow line (m; far above any terrain without snow).
    #[uniform(100)]
    pub snow: Vec4,
    /// Linear colours of the roads' paint: asphalt (highways) and gravel (roads), laid where a
    /// chunk's paint field (its UVs) is ≤ 0.
    #[uniform(100)]
    pub asphalt: Vec4,
    #[uniform(100)]
    pub gravel: Vec4,
    /// A far-field page's texture grid (`super::far_field`): x a tile's side (m), z the texel
    /// spacing (m), w texels a side; all 0 without textures (level 0, untextured levels).
    #[uniform(100)]
    pub own_grid: Vec4,
    /// The parent texture's grid, likewise.
    #[uniform(100)]
    pub parent_grid: Vec4,
    /// x: a chunk's side (m), so a node of level `l` is `x · 2^l` a side and its corner is its
    /// index (in its `MeshTag`) times that: the vertex shader finds its border vertices with it.
    #[uniform(100)]
    pub node: Vec4,
    /// A far-field page's texture arrays: a tile's layer is in its `MeshTag`.
    #[texture(101, dimension = "2d_array")]
    #[sampler(102)]
    pub own_colour: Option<Handle<Image>>,
    #[texture(103, dimension = "2d_array")]
    pub own_normal: Option<Handle<Image>>,
    #[texture(104, dimension = "2d_array")]
    pub parent_colour: Option<Handle<Image>>,
    #[texture(105, dimension = "2d_array")]
    pub parent_normal: Option<Handle<Image>>,
}

pub use crate::mesh::far_field::SAND_BAND_M;

impl LodExt {
    /// A level's extension with the sky's hemispheric ambient.
    /// `ambient` is `scene::hemisphere_ambient()`, computed once for all levels.
    pub fn new(
        morph: Vec4,
        tint: Vec4,
        ambient: ([f32; 3], [f32; 3]),
        sea_level_m: f32,
        snow_line_m: Option<f32>,
    ) -> Self {
        use crate::mesh::palette::{ROCK_BLEND_HALF_WIDTH, material_colour};
        use crate::world::{Material, ROCK_SLOPE};
        let (up, down) = ambient;
        Self {
            morph,
            tint,
            ambient_up: Vec3::from(up).extend(0.0),
            ambient_down: Vec3::from(down).extend(0.0),
            surface: Vec4::new(sea_level_m, SAND_BAND_M, ROCK_SLOPE, ROCK_BLEND_HALF_WIDTH),
            sand: Vec4::from(material_colour(Material::Sand as u8)),
            rock: Vec4::from(material_colour(Material::Rock as u8)),
            snow: Vec3::from_slice(&material_colour(Material::Snow as u8)[..3]).extend(snow_line_m.unwrap_or(1.0e9)),
            asphalt: Vec4::from(material_colour(Material::Asphalt as u8)),
            gravel: Vec4::from(material_colour(Material::Gravel as u8)),
            own_grid: Vec4::ZERO,
            parent_grid: Vec4::ZERO,
            node: Vec4::ZERO,
            own_colour: None,
            own_normal: None,
            parent_colour: None,
            parent_normal: None,
        }
    }
}

impl MaterialExtension for LodExt {
    fn vertex_shader() -> ShaderRef {
        LOD_SHADER.into()
    }
    // The main pass's fragment: ambient from the sky (the prepass keeps Bevy's own).
    fn fragment_shader() -> ShaderRef {
        LOD_SHADER.into()
    }
    // Camera prepasses and every shadow map use this one: shadows see the morphed geometry.
    fn prepass_vertex_shader() -> ShaderRef {
        LOD_SHADER.into()
    }
    fn deferred_vertex_shader() -> ShaderRef {
        LOD_SHADER.into()
    }
    fn specialize(
        _pipeline: &MaterialExtensionPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        layout: &MeshVertexBufferLayoutRef,
        _key: MaterialExtensionKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        // Appended to Bevy's own attributes for this pass (the main and prepass layouts differ).
        let extra = layout.0.get_layout(&[
            ATTRIBUTE_LOD_MORPH.at_shader_location(8),
            ATTRIBUTE_LOD_MORPH_COLOR.at_shader_location(9),
        ])?;
        descriptor.vertex.buffers[0].attributes.extend(extra.attributes);
        Ok(())
    }
}

pub type LodMaterial = ExtendedMaterial<StandardMaterial, LodExt>;

/// Colours of the LOD debug view, by level (linear; cycles past the last).
pub const LEVEL_TINTS: [[f32; 3]; 8] = [
    [1.0, 1.0, 1.0],
    [1.0, 0.35, 0.35],
    [0.35, 1.0, 0.35],
    [0.35, 0.5, 1.0],
    [1.0, 1.0, 0.3],
    [1.0, 0.35, 1.0],
    [0.3, 1.0, 1.0],
    [1.0, 0.6, 0.2],
];

/// The morph band uniform of a level (`lod` off: never morph).
pub fn morph_uniform(ranges: &LodRanges, level: u8, lod: bool) -> Vec4 {
    if !lod {
        return Vec4::new(1.0e30, 2.0e30, level as f32, 0.0);
    }
    let [a, b] = ranges.morph_band_m(level);
    Vec4::new(a, b, level as f32, 0.0)
}

pub fn level_tint(level: u8, on: bool) -> Vec4 {
    if !on {
        return Vec4::ONE;
    }
    let c = LEVEL_TINTS[level as usize % LEVEL_TINTS.len()];
    Vec4::new(c[0], c[1], c[2], 1.0)
}

/// The terrain's base material: white (the vertex colours carry the palette), rough, both sides.
pub fn terrain_base() -> StandardMaterial {
    StandardMaterial {
        base_color: Color::WHITE,
        perceptual_roughness: 0.92,
        metallic: 0.0,
        reflectance: 0.2,
        // Drawn from both sides (the world can be seen from below), and lit on both as on its
        // front: where a back face wins a pixel (a ridge's far side at its silhouette, the
        // ground behind a crack of a pixel between tiles) it shows the ground's own colour, not
        // a dark speck (the normal turned away from the camera).
        cull_mode: None,
        double_sided: false,
        ..default()
    }
}
