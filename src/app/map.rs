//! The in-game map (SPEC §6): the island from above with toggleable layers, the cliff
//! generator's preset and dials editable (the layer redraws at once), and the camera's position
//! and view drawn live. The image comes from [`crate::cliffs::render_map`] — the same function
//! `isla map` uses headless — and the camera marker is painted over it each frame, so moving the
//! camera never re-renders the map.

use super::IslandWorld;
use super::settings::{Action, DebugToggles};
use crate::cliffs::{
    CliffColouring, CliffPreset, CliffSettings, MapLayers, MapRegion, MapRequest, WaterMask, render_map,
};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

/// Longest side of the map image in pixels; the blueprint is sampled down to fit.
pub const MAP_IMAGE_PX: u32 = 400;

/// The map window's state: what to draw, the last image and its statistics.
#[derive(Resource)]
pub struct MapState {
    pub settings: CliffSettings,
    pub layers: MapLayers,
    pub water: WaterMask,
    pub scale: u32,
    texture: Option<egui::TextureHandle>,
    dirty: bool,
    pub last: Option<(u32, f64)>,
}

impl MapState {
    pub fn new(world: &IslandWorld) -> Self {
        let bp = &world.source.blueprint;
        let layers = MapLayers { camera: false, ..MapLayers::default() };
        Self {
            settings: CliffSettings::for_blueprint(CliffPreset::Island, bp),
            layers,
            water: WaterMask::from_blueprint(bp),
            scale: bp.map_size.div_ceil(MAP_IMAGE_PX).max(1),
            texture: None,
            dirty: true,
            last: None,
        }
    }
}

/// The map window (M), drawn in egui's pass while the toggle is on.
pub struct MapPlugin;

impl Plugin for MapPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.add_systems(bevy_egui::EguiPrimaryContextPass, map_ui.run_if(|t: Res<DebugToggles>| t.map));
    }
}

pub fn map_ui(
    mut contexts: EguiContexts,
    toggles: Res<DebugToggles>,
    world: Res<IslandWorld>,
    state: Option<ResMut<MapState>>,
    mut commands: Commands,
    cams: Query<&Transform, With<Camera3d>>,
    mut actions: MessageWriter<Action>,
) -> Result {
    let Some(mut state) = state else {
        commands.insert_resource(MapState::new(&world));
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let bp = &world.source.blueprint;
    if state.dirty || state.texture.is_none() {
        redraw(ctx, &mut state, bp);
    }
    let mut open = true;
    let mut s = state.settings;
    let mut l = state.layers;
    let per_px = world.source.layout.column_m * state.scale as f32;
    egui::Window::new("Map (M)").open(&mut open).default_pos([370.0, 10.0]).resizable(false).show(ctx, |ui| {
        if let Some(tex) = &state.texture {
            let size = tex.size_vec2();
            let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
            ui.painter().image(
                tex.id(),
                rect,
                egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                egui::Color32::WHITE,
            );
            if let Some(cam) = cams.iter().next() {
                paint_camera(ui.painter(), rect, cam, per_px);
            }
        }
        layers_ui(ui, &mut l);
        ui.separator();
        cliff_dials_ui(ui, &mut s, bp);
        if let Some((placed, ms)) = state.last {
            ui.label(format!("{placed} cliffs placed in {ms:.1} ms"));
        }
    });
    if s != state.settings || l != state.layers {
        state.settings = s;
        state.layers = l;
        state.dirty = true;
    }
    if !open && toggles.map {
        actions.write(Action::Map);
    }
    Ok(())
}

/// Render the map image again with the window's layers and cliff dials, into its texture.
fn redraw(ctx: &egui::Context, state: &mut MapState, bp: &crate::blueprint::Blueprint) {
    let req = MapRequest {
        blueprint: Some(bp),
        water: Some(&state.water),
        settings: state.settings,
        region: MapRegion::whole(bp).scaled(state.scale),
        layers: state.layers,
        camera: None,
    };
    match render_map(&req) {
        Ok(render) => {
            let img = egui::ColorImage::from_rgba_unmultiplied(
                [render.image.width as usize, render.image.height as usize],
                &render.image.pixels,
            );
            match &mut state.texture {
                Some(t) => t.set(img, egui::TextureOptions::NEAREST),
                None => state.texture = Some(ctx.load_texture("isla-map", img, egui::TextureOptions::NEAREST)),
            }
            state.last = render.stats().map(|s| (s.placed, s.elapsed_ms));
        }
        Err(e) => warn!("map: {e}"),
    }
    state.dirty = false;
}

/// The camera over the map image: a dot and its view cone, `per_px` metres to a map pixel.
fn paint_camera(painter: &egui::Painter, rect: egui::Rect, cam: &Transform, per_px: f32) {
    let at = rect.min + egui::vec2(cam.translation.x / per_px, cam.translation.z / per_px);
    let fwd = cam.forward();
    let dir = egui::vec2(fwd.x, fwd.z).normalized();
    let half = 27.5f32.to_radians();
    let rot = |v: egui::Vec2, a: f32| egui::vec2(v.x * a.cos() - v.y * a.sin(), v.x * a.sin() + v.y * a.cos());
    let reach = 60.0;
    let stroke = egui::Stroke::new(1.5, egui::Color32::from_rgb(255, 60, 40));
    painter.line_segment([at, at + rot(dir, half) * reach], stroke);
    painter.line_segment([at, at + rot(dir, -half) * reach], stroke);
    painter.circle_filled(at, 4.0, egui::Color32::from_rgb(255, 60, 40));
}

/// The layer switches.
fn layers_ui(ui: &mut egui::Ui, l: &mut MapLayers) {
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut l.terrain, "terrain");
        ui.checkbox(&mut l.water_bodies, "water bodies");
        ui.checkbox(&mut l.elevation_bands, "cliff-elevation bands");
        ui.checkbox(&mut l.cliffiness, "cliffiness");
        ui.checkbox(&mut l.chunk_grid, "chunk grid");
        ui.checkbox(&mut l.rivers, "rivers");
        ui.checkbox(&mut l.roads, "roads");
        ui.checkbox(&mut l.towns, "towns");
        let mut cliffs = l.cliffs.is_some();
        ui.checkbox(&mut cliffs, "cliffs");
        let mut by_orientation = l.cliffs == Some(CliffColouring::ByOrientation);
        ui.add_enabled(cliffs, egui::Checkbox::new(&mut by_orientation, "by orientation"));
        l.cliffs =
            cliffs.then_some(if by_orientation { CliffColouring::ByOrientation } else { CliffColouring::Reference });
    });
}

/// The cliff generator's preset and dials.
fn cliff_dials_ui(ui: &mut egui::Ui, s: &mut CliffSettings, bp: &crate::blueprint::Blueprint) {
    egui::ComboBox::from_label("cliff preset").selected_text(s.preset.name()).show_ui(ui, |ui| {
        for p in CliffPreset::ALL {
            if ui.selectable_label(s.preset == p, p.name()).clicked() && s.preset != p {
                *s = CliffSettings::for_blueprint(p, bp);
            }
        }
    });
    ui.add(egui::DragValue::new(&mut s.seed).prefix("seed "));
    ui.add(egui::Slider::new(&mut s.elevation_0, -50.0..=600.0).text("elevation_0 (m)"));
    ui.add(egui::Slider::new(&mut s.elevation_interval, 5.0..=200.0).text("interval (m)"));
    ui.add(egui::Slider::new(&mut s.richness, 0.05..=6.0).logarithmic(true).text("richness / continuity"));
    ui.add(egui::Slider::new(&mut s.frequency, 1.0 / 6.0..=6.0).logarithmic(true).text("frequency"));
    ui.add(egui::Slider::new(&mut s.smoothing, 0.0..=1.0).text("smoothing"));
}
