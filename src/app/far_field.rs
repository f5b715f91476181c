//! The far field's textures on the GPU (SPEC §3 "Far-field textures"). A coarse tile's two
//! textures (`mesh::far_field`: its own level's and its parent level's over its area, colour and
//! normal each) are **layers of shared texture arrays**, so the tiles of a level draw with a
//! handful of materials and batch, in the main pass, the prepass and every shadow cascade, as
//! the untextured levels do. (One material per tile cost a bind group and a batch per tile in
//! each of those passes: PERFORMANCE.md, "Far field".)
//!
//! - **Pages.** A page is one material with four texture arrays, for the tiles of one level (and
//!   one pair of texture sides). A level's first page has [`FIRST_PAGE_LAYERS`] layers, each
//!   next one twice as many up to [`PAGE_LAYERS`], so the top level's tile or two take little
//!   and a ring of 70 tiles takes six pages. A page that empties is dropped, unless it is its
//!   level's only page with room (a spare, so a flight does not make and drop pages at every
//!   step).
//! - **Slots.** A tile holds a [`FarFieldSlot`] (its page and layer); the layer is freed when the
//!   slot goes (the entity despawned, or the slot replaced).
//! - **The tile's tag.** Its [`MeshTag`] carries the layer and the tile's index on its level's
//!   grid ([`tile_tag`]); the shader derives the texture's origin from the index, so one
//!   material serves every tile of the page.
//! - **Uploads.** A page's arrays are created empty; each tile's texels are written into its
//!   layer on the render world's queue ([`LayerWrites`], applied after the frame's assets are
//!   prepared). The texels are not kept on the CPU.

use super::terrain::LodMaterial;
use crate::mesh::far_field::TileTexture;
use bevy::asset::RenderAssetUsages;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::mesh::MeshTag;
use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_resource::{
    Extent3d, Origin3d, TexelCopyBufferLayout, TexelCopyTextureInfo, TextureAspect, TextureDimension, TextureFormat,
    TextureViewDescriptor, TextureViewDimension,
};
use bevy::render::renderer::RenderQueue;
use bevy::render::texture::GpuImage;
use bevy::render::{ExtractSchedule, MainWorld, Render, RenderApp, RenderSystems};

/// Layers of a page's arrays, at most: the tiles that share one material. A level's first page
/// has [`FIRST_PAGE_LAYERS`], each next one twice its predecessor's, up to this.
pub const PAGE_LAYERS: u32 = 16;
pub const FIRST_PAGE_LAYERS: u32 = 4;
/// Bits of the tag that hold the layer; the node's X and Z indices take [`TILE_BITS`] each, and
/// its border pins ([`crate::world::display::border_pins`]) the top [`PIN_BITS`].
const LAYER_BITS: u32 = 4;
const TILE_BITS: u32 = 10;
pub const PIN_SHIFT: u32 = LAYER_BITS + 2 * TILE_BITS;
const PIN_BITS: u32 = 8;
const _: () = assert!(PAGE_LAYERS <= 1 << LAYER_BITS && PIN_SHIFT + PIN_BITS == 32);

/// A node's [`MeshTag`]: for a coarse tile, its layer in its page; its index `[x, z]` on its
/// level's grid of nodes (`terrain_lod.wgsl` unpacks it). A 16384² map has 512 level-0 chunks
/// a side and at most 256 tiles. The border pins above them are set each frame by the world
/// server ([`with_pins`]).
pub fn tile_tag(layer: u32, tile: [u32; 2]) -> u32 {
    debug_assert!(layer < PAGE_LAYERS && tile[0] < 1 << TILE_BITS && tile[1] < 1 << TILE_BITS);
    layer | tile[0] << LAYER_BITS | tile[1] << (LAYER_BITS + TILE_BITS)
}

/// `tag` with its border pins replaced by `pins`.
pub fn with_pins(tag: u32, pins: u8) -> u32 {
    (tag & ((1 << PIN_SHIFT) - 1)) | (pins as u32) << PIN_SHIFT
}

/// What tiles may share a page: their level and the sides of their own and parent textures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PageKey {
    level: u8,
    own_side: u32,
    parent_side: u32,
}

impl PageKey {
    /// GPU bytes of a page of `layers`: four RGBA8 arrays.
    fn bytes(&self, layers: u32) -> u64 {
        let (o, p) = (self.own_side as u64, self.parent_side as u64);
        2 * 4 * layers as u64 * (o * o + p * p)
    }
}

struct Page {
    id: u32,
    key: PageKey,
    layers: u32,
    material: Handle<LodMaterial>,
    /// Own colour, own normal, parent colour, parent normal.
    images: [Handle<Image>; 4],
    free: Vec<u32>,
}

/// The pages of the island on screen. Replaced, with a new generation, when the island is: the
/// old island's tiles keep their pages alive (through their material) until they go, and their
/// slots then free nothing in the new island's pages.
#[derive(Resource, Default)]
pub struct FarFieldPages {
    generation: u32,
    next_id: u32,
    pages: Vec<Page>,
}

/// Where a coarse tile's textures live: its page and layer.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[component(on_remove = free_slot)]
pub struct FarFieldSlot {
    generation: u32,
    page: u32,
    layer: u32,
}

fn free_slot(mut world: DeferredWorld, ctx: HookContext) {
    let Some(&slot) = world.get::<FarFieldSlot>(ctx.entity) else { return };
    if let Some(mut pages) = world.get_resource_mut::<FarFieldPages>() {
        pages.free(slot);
    }
}

/// One layer's texels, waiting for the render world.
struct LayerWrite {
    image: AssetId<Image>,
    layer: u32,
    side: u32,
    texels: Vec<u8>,
}

/// The layers written this frame, handed to the render world at extraction.
#[derive(Resource, Default)]
pub struct LayerWrites(Vec<LayerWrite>);

impl LayerWrites {
    /// Layers waiting for extraction.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The writes the render world holds until their arrays are on the GPU.
#[derive(Resource, Default)]
struct PendingLayerWrites(Vec<LayerWrite>);

impl FarFieldPages {
    /// The pages of a new island (a generation after `previous`'s).
    pub fn after(previous: Option<&FarFieldPages>) -> Self {
        Self { generation: previous.map_or(0, |p| p.generation.wrapping_add(1)), ..default() }
    }

    /// GPU bytes of the pages, per level (`levels` long).
    pub fn bytes_per_level(&self, levels: usize) -> Vec<u64> {
        let mut out = vec![0; levels];
        for p in &self.pages {
            if let Some(b) = out.get_mut(p.key.level as usize) {
                *b += p.key.bytes(p.layers);
            }
        }
        out
    }

    /// Pages alive.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    fn free(&mut self, slot: FarFieldSlot) {
        if slot.generation != self.generation {
            return;
        }
        let Some(i) = self.pages.iter().position(|p| p.id == slot.page) else { return };
        self.pages[i].free.push(slot.layer);
        let key = self.pages[i].key;
        let empty = |p: &Page| p.free.len() == p.layers as usize;
        // An empty page goes unless it is its level's only page with room.
        if empty(&self.pages[i]) && self.pages.iter().any(|p| p.id != slot.page && p.key == key && !p.free.is_empty()) {
            self.pages.swap_remove(i);
        }
    }

    /// A layer of a page for `key`: the fullest page with room, or a new one made from the
    /// level's material.
    fn take(
        &mut self,
        key: PageKey,
        level_material: &Handle<LodMaterial>,
        grids: [Vec4; 2],
        images: &mut Assets<Image>,
        materials: &mut Assets<LodMaterial>,
    ) -> Option<(usize, u32)> {
        let fullest = (self.pages.iter().enumerate())
            .filter(|(_, p)| p.key == key && !p.free.is_empty())
            .min_by_key(|(_, p)| p.free.len())
            .map(|(i, _)| i);
        let i = match fullest {
            Some(i) => i,
            None => {
                let mut m = materials.get(level_material).cloned()?;
                // Small levels (the top one holds a tile or two) take small pages.
                let before = self.pages.iter().filter(|p| p.key == key).count() as u32;
                let layers = (FIRST_PAGE_LAYERS << before.min(8)).min(PAGE_LAYERS);
                let mut array = |side: u32, srgb: bool| images.add(layer_array(side, layers, srgb));
                let images = [
                    array(key.own_side, true),
                    array(key.own_side, false),
                    array(key.parent_side, true),
                    array(key.parent_side, false),
                ];
                let ext = &mut m.extension;
                ext.morph.w = 1.0;
                [ext.own_grid, ext.parent_grid] = grids;
                ext.own_colour = Some(images[0].clone());
                ext.own_normal = Some(images[1].clone());
                ext.parent_colour = Some(images[2].clone());
                ext.parent_normal = Some(images[3].clone());
                let id = self.next_id;
                self.next_id = self.next_id.wrapping_add(1);
                // Layers are handed out lowest first.
                let free = (0..layers).rev().collect();
                self.pages.push(Page { id, key, layers, material: materials.add(m), images, free });
                self.pages.len() - 1
            }
        };
        let layer = self.pages[i].free.pop()?;
        Some((i, layer))
    }
}

/// An empty array of `layers` RGBA8 layers (sRGB for colour), filtered linearly and clamped;
/// the layers are written by [`LayerWrites`].
fn layer_array(side: u32, layers: u32, srgb: bool) -> Image {
    let format = if srgb { TextureFormat::Rgba8UnormSrgb } else { TextureFormat::Rgba8Unorm };
    let size = Extent3d { width: side, height: side, depth_or_array_layers: layers };
    let mut image = Image::new_uninit(size, TextureDimension::D2, format, RenderAssetUsages::RENDER_WORLD);
    image.sampler = bevy::image::ImageSampler::linear();
    image.texture_view_descriptor =
        Some(TextureViewDescriptor { dimension: Some(TextureViewDimension::D2Array), ..default() });
    image
}

/// The grid uniform of a level's far-field textures (`LodExt::own_grid`, `parent_grid`): x the
/// tile's side (m), z the texel spacing (m), w texels a side.
fn grid_uniform(t: &TileTexture, tile_m: f32, column_m: f32) -> Vec4 {
    Vec4::new(tile_m, 0.0, t.spacing as f32 * column_m, t.side as f32)
}

/// What a placed tile is drawn with: its page's material, its tag, its slot.
pub type Placed = (MeshMaterial3d<LodMaterial>, MeshTag, FarFieldSlot);

/// Put a coarse tile's textures in a page of its level: the material to draw it with, its tag
/// and its slot. `None` when the level's material is gone (a reload under way).
#[allow(clippy::too_many_arguments)]
pub fn place(
    pages: &mut FarFieldPages,
    writes: &mut LayerWrites,
    level_material: &Handle<LodMaterial>,
    level: u8,
    [own, parent]: [TileTexture; 2],
    column_m: f32,
    images: &mut Assets<Image>,
    materials: &mut Assets<LodMaterial>,
) -> Option<Placed> {
    let tile_cols = (crate::world::CHUNK_COLUMNS as i64) << level;
    assert!(
        own.origin[0] % tile_cols == 0 && own.origin[1] % tile_cols == 0 && own.origin == parent.origin,
        "a tile's textures start on its corner"
    );
    let tile = [(own.origin[0] / tile_cols) as u32, (own.origin[1] / tile_cols) as u32];
    let key = PageKey { level, own_side: own.side, parent_side: parent.side };
    let tile_m = tile_cols as f32 * column_m;
    let grids = [grid_uniform(&own, tile_m, column_m), grid_uniform(&parent, tile_m, column_m)];
    let (i, layer) = pages.take(key, level_material, grids, images, materials)?;
    let page = &pages.pages[i];
    let texels = [(&own, &own.colour), (&own, &own.normal), (&parent, &parent.colour), (&parent, &parent.normal)];
    for (image, (t, data)) in page.images.iter().zip(texels) {
        writes.0.push(LayerWrite { image: image.id(), layer, side: t.side, texels: data.concat() });
    }
    let slot = FarFieldSlot { generation: pages.generation, page: page.id, layer };
    Some((MeshMaterial3d(page.material.clone()), MeshTag(tile_tag(layer, tile)), slot))
}

pub struct FarFieldTexturesPlugin;

impl Plugin for FarFieldTexturesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FarFieldPages>().init_resource::<LayerWrites>();
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else { return };
        render_app
            .init_resource::<PendingLayerWrites>()
            .add_systems(ExtractSchedule, extract_layer_writes)
            .add_systems(Render, write_layers.in_set(RenderSystems::PrepareResources));
    }
}

/// The main world's writes move to the render world with the frame they belong to.
fn extract_layer_writes(mut main_world: ResMut<MainWorld>, mut pending: ResMut<PendingLayerWrites>) {
    if let Some(mut writes) = main_world.get_resource_mut::<LayerWrites>() {
        pending.0.append(&mut writes.0);
    }
}

/// Write the pending layers whose arrays are on the GPU, in order; the others wait a frame. A
/// write whose array is gone (its page dropped before it was prepared) is dropped.
fn write_layers(
    mut pending: ResMut<PendingLayerWrites>,
    gpu_images: Res<RenderAssets<GpuImage>>,
    queue: Res<RenderQueue>,
    mut waited: Local<u32>,
) {
    if pending.0.is_empty() {
        return;
    }
    let mut kept = Vec::new();
    for w in pending.0.drain(..) {
        let Some(gpu) = gpu_images.get(w.image) else {
            kept.push(w);
            continue;
        };
        queue.write_texture(
            TexelCopyTextureInfo {
                texture: &gpu.texture,
                mip_level: 0,
                origin: Origin3d { x: 0, y: 0, z: w.layer },
                aspect: TextureAspect::All,
            },
            &w.texels,
            TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(w.side * 4), rows_per_image: Some(w.side) },
            Extent3d { width: w.side, height: w.side, depth_or_array_layers: 1 },
        );
    }
    // An array never prepared (its page dropped at once) would hold its writes forever.
    *waited = if kept.is_empty() { 0 } else { *waited + 1 };
    if *waited > 600 {
        debug!("far field: {} texture layers never reached the GPU; dropped", kept.len());
        kept.clear();
        *waited = 0;
    }
    pending.0 = kept;
}
