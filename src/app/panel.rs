//! The debug panel of the flight (SPEC §7), in egui: toggles with keys, camera presets as buttons,
//! and live stats. While the pointer or keyboard is over the panel, the camera does not move.

use super::IslandWorld;
use super::camera::CameraPreset;
use super::debug::WireframeSupport;
use super::server::{Loading, WorldStats};
use super::settings::{Action, DebugToggles};
use crate::mesh::Shading;
use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};

pub struct DebugPanelPlugin;

impl Plugin for DebugPanelPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        if !app.is_plugin_added::<FrameTimeDiagnosticsPlugin>() {
            app.add_plugins(FrameTimeDiagnosticsPlugin::default());
        }
        app.add_plugins(EguiPlugin::default())
            .add_systems(Update, gate_camera_input.in_set(super::IslaSet::Input))
            .add_systems(EguiPrimaryContextPass, panel_ui.run_if(|t: Res<DebugToggles>| t.panel));
    }
}

/// Input over a panel goes to the panel, never to the camera.
fn gate_camera_input(
    wants: Option<Res<bevy_egui::input::EguiWantsInput>>,
    mut cams: Query<&mut bevy::camera_controller::free_camera::FreeCameraState>,
) {
    let busy = wants.is_some_and(|w| w.wants_any_pointer_input() || w.wants_any_keyboard_input());
    for mut s in &mut cams {
        if s.enabled == busy {
            s.enabled = !busy;
        }
    }
}

fn panel_ui(
    mut contexts: EguiContexts,
    toggles: Res<DebugToggles>,
    support: Res<WireframeSupport>,
    stats: Res<WorldStats>,
    lod: Res<super::server::Lod>,
    loading: Res<Loading>,
    diagnostics: Res<DiagnosticsStore>,
    world: Res<IslandWorld>,
    cams: Query<&Transform, With<Camera3d>>,
    mut actions: MessageWriter<Action>,
    saved: Option<Res<super::input::SavedViewsOf>>,
    sun: Res<super::settings::SunSettings>,
    probe: Option<Res<super::probe::ProbeState>>,
    reload: Option<Res<super::reload::ReloadStatus>>,
    path: Option<Res<super::film::PathOf>>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut t = *toggles;
    egui::Window::new("Isla debug (F1)").default_pos([10.0, 10.0]).resizable(false).show(ctx, |ui| {
        overlays_ui(ui, &mut t, support.0);
        ui.separator();
        probe_ui(ui, probe.as_deref(), &world);
        camera_ui(ui, &mut actions);
        sun_ui(ui, &sun, &mut actions);
        if let Some(saved) = &saved {
            saved_views_ui(ui, saved, &mut actions);
        }
        if let Some(path) = &path {
            path_ui(ui, path, &mut actions);
        }
        ui.separator();
        ui.heading("Stats");
        if let Some(event) = reload.as_ref().and_then(|r| r.last.as_ref()) {
            reload_ui(ui, event);
        }
        let frame_ms =
            diagnostics.get(&FrameTimeDiagnosticsPlugin::FRAME_TIME).and_then(|d| d.smoothed()).unwrap_or(0.0);
        ui.label(format!("frame time {frame_ms:.1} ms"));
        stats_ui(ui, &stats, &loading, &lod);
        if let Some(cam) = cams.iter().next() {
            let p = cam.translation;
            let col = world.source.layout.column_m;
            ui.label(format!(
                "camera {:.0}, {:.0}, {:.0} m  (pixel {:.0}, {:.0})",
                p.x,
                p.y,
                p.z,
                p.x / col,
                p.z / col
            ));
        }
    });
    actions.write_batch(changes(&toggles, &t));
    Ok(())
}

/// The last reload of the watched blueprint: what was loaded, or why the file was refused.
fn reload_ui(ui: &mut egui::Ui, event: &super::reload::ReloadEvent) {
    use super::reload::ReloadEvent;
    let line = event.line();
    match event {
        ReloadEvent::Reloaded(_) => ui.label(line),
        ReloadEvent::Refused(_) => ui.colored_label(egui::Color32::from_rgb(255, 110, 90), line),
    };
}

/// The actions that turn the toggles `from` into `to` (a panel edits a copy, then asks).
pub fn changes(from: &DebugToggles, to: &DebugToggles) -> Vec<Action> {
    let flips = [
        (from.panel != to.panel, Action::Panel),
        (from.wireframe != to.wireframe, Action::Wireframe),
        (from.chunk_borders != to.chunk_borders, Action::ChunkBorders),
        (from.water != to.water, Action::Water),
        (from.shadows != to.shadows, Action::Shadows),
        (from.sky != to.sky, Action::Sky),
        (from.fog != to.fog, Action::Fog),
        (from.seam_highlight != to.seam_highlight, Action::SeamHighlight),
        (from.lod_colours != to.lod_colours, Action::LodColours),
        (from.map != to.map, Action::Map),
        (from.shading != to.shading, Action::SetShading(to.shading)),
    ];
    flips.into_iter().filter_map(|(changed, a)| changed.then_some(a)).collect()
}

/// The overlay switches, each labelled with its key.
fn overlays_ui(ui: &mut egui::Ui, t: &mut DebugToggles, wireframe_support: bool) {
    ui.heading("Overlays");
    ui.add_enabled_ui(wireframe_support, |ui| ui.checkbox(&mut t.wireframe, "Wireframe (F2)"));
    if !wireframe_support {
        ui.label("Wireframe unavailable: this device lacks line polygon mode or push constants.");
    }
    ui.checkbox(&mut t.chunk_borders, "Chunk borders (F3)");
    ui.checkbox(&mut t.water, "Water sheet (F4)");
    ui.checkbox(&mut t.shadows, "Shadows (F5)");
    ui.checkbox(&mut t.sky, "Sky (F6)");
    ui.checkbox(&mut t.fog, "Fog (F7)");
    ui.horizontal(|ui| {
        ui.label("Shading (F8):");
        ui.radio_value(&mut t.shading, Shading::Palette, "palette");
        ui.radio_value(&mut t.shading, Shading::Normals, "normals");
        ui.radio_value(&mut t.shading, Shading::Materials, "materials");
    });
    ui.checkbox(&mut t.seam_highlight, "Seam columns highlighted (F9)");
    ui.checkbox(&mut t.lod_colours, "Level of detail coloured (F10)");
    ui.checkbox(&mut t.map, "Map (M)");
}

/// The camera presets and the view string, as buttons that send their key's action.
fn camera_ui(ui: &mut egui::Ui, actions: &mut MessageWriter<Action>) {
    ui.heading("Camera");
    ui.horizontal(|ui| {
        for (i, p) in CameraPreset::ALL.iter().enumerate() {
            if ui.button(format!("{} ({})", p.name(), i + 1)).clicked() {
                actions.write(Action::Preset(i));
            }
        }
    });
    ui.horizontal(|ui| {
        if ui.button("Print the view string (V)").clicked() {
            actions.write(Action::PrintView);
        }
        if ui.button("Save the view (B)").clicked() {
            actions.write(Action::SaveView);
        }
    });
}

/// The probe: the column under the cursor (height, pixel), and the pinned one's fields.
fn probe_ui(ui: &mut egui::Ui, probe: Option<&super::probe::ProbeState>, world: &IslandWorld) {
    let Some(probe) = probe else { return };
    ui.heading("Probe (left click pins)");
    match probe.hover {
        Some(h) => {
            let src = &world.source;
            let wet = src.water_at(h.pixel[0] as u32, h.pixel[1] as u32, src.layout.top_m());
            ui.label(format!(
                "under the cursor: pixel {}, {}  ground {:.1} m{}",
                h.pixel[0],
                h.pixel[1],
                src.surface_y_m(h.pixel[0], h.pixel[1]),
                wet.map_or(String::new(), |w| format!(
                    "  water {:.1} m, {:.1} m deep{}",
                    w.water_surface_y_m,
                    w.true_depth_m,
                    if w.seam { ", seam" } else { "" }
                ))
            ));
        }
        None => {
            ui.label("under the cursor: sky");
        }
    }
    if let Some(r) = probe.ruler() {
        ui.label(format!(
            "ruler (R + clicks): {:.1} m, {:.1} m across, height {:+.1} m, mean slope {:+.1} %",
            r.distance_m, r.horizontal_m, r.rise_m, r.slope_percent
        ));
    } else if probe.ruler.len() == 1 {
        ui.label("ruler: one end placed; R + click for the other");
    }
    if let Some((_, json)) = &probe.pinned {
        for line in pinned_lines(json) {
            ui.label(line);
        }
    }
    ui.separator();
}

/// The pinned probe's fields, a few to a line, numbers rounded, absent ones left out.
pub fn pinned_lines(json: &serde_json::Value) -> Vec<String> {
    let f = |k: &str| json.get(k).filter(|v| !v.is_null());
    let num = |k: &str| f(k).and_then(|v| v.as_f64());
    let text = |k: &str| f(k).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
    if json.get("hit").and_then(|h| h.as_bool()) != Some(true) {
        return vec!["pinned: sky (no column)".into()];
    }
    let xyz = f("world").and_then(|w| w.as_array()).map_or(String::new(), |w| {
        let c: Vec<String> = w.iter().map(|c| format!("{:.0}", c.as_f64().unwrap_or(f64::NAN))).collect();
        c.join(", ")
    });
    let mut lines = vec![
        format!(
            "pinned: {xyz} m, pixel {}, chunk {}, level {}",
            text("pixel").unwrap_or_default(),
            text("chunk").unwrap_or_default(),
            text("level").unwrap_or_default()
        ),
        format!(
            "ground {:.1} m, {}{}",
            num("surface_y_m").unwrap_or(f64::NAN),
            text("biome").unwrap_or_default(),
            text("road").map_or(String::new(), |r| format!(", road: {r}"))
        ),
    ];
    if let Some(id) = text("water_body") {
        lines.push(format!(
            "water: body {id} ({}), level {:.1} m, surface {:.1} m, {:.1} m deep{}{}",
            text("water_type").unwrap_or_default(),
            num("water_level_m").unwrap_or(f64::NAN),
            num("water_surface_y_m").unwrap_or(f64::NAN),
            num("true_depth_m").unwrap_or(f64::NAN),
            if f("seam").and_then(|s| s.as_bool()) == Some(true) { ", seam" } else { "" },
            f("river").map_or(String::new(), |r| format!(", river {} (order {})", r["id"], r["order"]))
        ));
    }
    if let Some(t) = f("nearest_town") {
        lines.push(format!("nearest town: {} at {:.0} m", t["index"], t["distance_m"].as_f64().unwrap_or(f64::NAN)));
    }
    lines
}

/// The sun in hand: elevation and azimuth sliders with their angles, and a time of day that moves
/// it along the day arc ([`super::settings::SunSettings::at_hour`]). The keys still turn it.
fn sun_ui(ui: &mut egui::Ui, sun: &super::settings::SunSettings, actions: &mut MessageWriter<Action>) {
    use super::settings::SunSettings;
    ui.heading("Sun");
    let mut s = *sun;
    ui.add(egui::Slider::new(&mut s.elevation_deg, 2.0..=89.0).text("elevation (°, - =)"));
    ui.add(egui::Slider::new(&mut s.azimuth_deg, 0.0..=359.9).text("azimuth (°, [ ])"));
    // The hour of this sun on the day arc. A sun off the arc (the default one, or one turned by
    // the angle sliders or keys) shows "—" until the slider is moved: it has no time of day.
    let on_arc = sun.hour_on_arc();
    let mut hour = on_arc.unwrap_or(6.0 + 12.0 * ((sun.azimuth_deg - 90.0) / 180.0).clamp(0.0, 1.0));
    let mut slider = egui::Slider::new(&mut hour, 6.0..=18.0).text("time of day (h)");
    if on_arc.is_none() {
        slider = slider.custom_formatter(|_, _| "—".to_string());
    }
    if ui.add(slider).changed() {
        s = SunSettings::at_hour(hour);
    }
    if s.elevation_deg != sun.elevation_deg || s.azimuth_deg != sun.azimuth_deg {
        actions.write(s.set_action());
    }
}

/// The views saved beside the blueprint, each a button that jumps to it.
fn saved_views_ui(ui: &mut egui::Ui, saved: &super::input::SavedViewsOf, actions: &mut MessageWriter<Action>) {
    if saved.1.is_empty() {
        return;
    }
    ui.label("Saved views:");
    ui.horizontal_wrapped(|ui| {
        for (i, (name, _)) in saved.1.iter().enumerate() {
            if ui.button(name).clicked() {
                actions.write(Action::JumpToSaved(i));
            }
        }
    });
}

/// The path beside the blueprint: its keys (where, when), and buttons to add, play and draw.
fn path_ui(ui: &mut egui::Ui, path: &super::film::PathOf, actions: &mut MessageWriter<Action>) {
    ui.horizontal(|ui| {
        ui.label("Path:");
        for (label, action) in
            [("add key (K)", Action::AddPathKey), ("play (P)", Action::PlayPath), ("draw (L)", Action::PathLine)]
        {
            if ui.button(label).clicked() {
                actions.write(action);
            }
        }
    });
    let times: Vec<f32> = path.film.as_ref().map_or(Vec::new(), |f| f.file.keys.iter().map(|k| k.arrive).collect());
    for (i, k) in path.keys.iter().enumerate() {
        let when = times.get(i).map_or(String::new(), |t| format!(" at {t:.1} s"));
        ui.label(format!("  key {}{when}: ({:.0}, {:.0}, {:.0}) m", i + 1, k[0], k[1], k[2]));
    }
    if let Some(p) = &path.problem {
        ui.label(format!("  {p}"));
    }
}

/// What the world server holds and draws.
fn stats_ui(ui: &mut egui::Ui, stats: &WorldStats, loading: &Loading, lod: &super::server::Lod) {
    ui.label(format!(
        "nodes: {} shown, {} resident, {} building, {} queued{}",
        stats.nodes_displayed,
        stats.nodes_resident,
        stats.nodes_building,
        stats.nodes_queued,
        if loading.finished { String::new() } else { format!(" (loading {:.0}%)", loading.fraction() * 100.0) }
    ));
    ui.label(format!("triangles {}", stats.triangles));
    for (level, (n, tris)) in stats.displayed_per_level.iter().enumerate() {
        if *n > 0 {
            ui.label(format!("  level {level}: {n} nodes, {tris} triangles"));
        }
    }
    ui.label(format!("GPU buffers {:.1} MiB", stats.gpu_bytes as f64 / (1024.0 * 1024.0)));
    ui.label(format!("water columns {}, seam columns {}", lod.0.water.wet_columns, lod.0.water.seam_columns));
    ui.label(format!("resident chunk data {:.1} MiB", stats.resident_bytes as f64 / (1024.0 * 1024.0)));
}
