//! The debug panel of the flight (SPEC §7), in egui: toggles with keys, camera presets as buttons,
//! and live stats. While the pointer or keyboard is over the panel, the camera does not move.

use super::IslandWorld;
use super::camera::CameraPreset;
use super::debug::{DebugToggles, WireframeSupport};
use super::server::{Loading, WorldStats};
use crate::mesh::Shading;
use bevy::camera_controller::free_camera::FreeCameraState;
use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};

/// Keys of the toggles, as shown in the panel and the README.
pub const KEYS: &[(KeyCode, &str, &str)] = &[
    (KeyCode::F1, "F1", "panel"),
    (KeyCode::F2, "F2", "wireframe"),
    (KeyCode::F3, "F3", "chunk borders"),
    (KeyCode::F4, "F4", "water sheet"),
    (KeyCode::F5, "F5", "shadows"),
    (KeyCode::F6, "F6", "sky"),
    (KeyCode::F7, "F7", "fog"),
    (KeyCode::F8, "F8", "shading: palette → normals → materials"),
    (KeyCode::F9, "F9", "seam columns highlighted"),
    (KeyCode::KeyM, "M", "map"),
];

pub struct DebugPanelPlugin;

impl Plugin for DebugPanelPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<FrameTimeDiagnosticsPlugin>() {
            app.add_plugins(FrameTimeDiagnosticsPlugin::default());
        }
        app.add_plugins(EguiPlugin::default())
            .add_systems(Update, (toggle_keys, gate_camera_input))
            .add_systems(EguiPrimaryContextPass, (panel_ui, super::map::map_ui));
    }
}

fn toggle_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut t: ResMut<DebugToggles>,
    wants: Option<Res<bevy_egui::input::EguiWantsInput>>,
) {
    if wants.is_some_and(|w| w.wants_any_keyboard_input()) {
        return;
    }
    let mut n = *t;
    for (key, _, name) in KEYS {
        if !keys.just_pressed(*key) {
            continue;
        }
        match *name {
            "panel" => n.panel = !n.panel,
            "wireframe" => n.wireframe = !n.wireframe,
            "chunk borders" => n.chunk_borders = !n.chunk_borders,
            "water sheet" => n.water = !n.water,
            "shadows" => n.shadows = !n.shadows,
            "sky" => n.sky = !n.sky,
            "fog" => n.fog = !n.fog,
            "seam columns highlighted" => n.seam_highlight = !n.seam_highlight,
            "map" => n.map = !n.map,
            _ => {
                n.shading = match n.shading {
                    Shading::Palette => Shading::Normals,
                    Shading::Normals => Shading::Materials,
                    Shading::Materials => Shading::Palette,
                }
            }
        }
    }
    if n != *t {
        *t = n;
    }
}

/// Input over a panel goes to the panel, never to the camera.
fn gate_camera_input(wants: Option<Res<bevy_egui::input::EguiWantsInput>>, mut cams: Query<&mut FreeCameraState>) {
    let busy = wants.is_some_and(|w| w.wants_any_pointer_input() || w.wants_any_keyboard_input());
    for mut s in &mut cams {
        if s.enabled == busy {
            s.enabled = !busy;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn panel_ui(
    mut contexts: EguiContexts,
    mut toggles: ResMut<DebugToggles>,
    support: Res<WireframeSupport>,
    stats: Res<WorldStats>,
    loading: Res<Loading>,
    diagnostics: Res<DiagnosticsStore>,
    world: Res<IslandWorld>,
    mut cams: Query<(&mut Transform, &mut FreeCameraState), With<Camera3d>>,
) -> Result {
    if !toggles.panel {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let mut t = *toggles;
    let mut preset = None;
    egui::Window::new("Isla debug (F1)").default_pos([10.0, 10.0]).resizable(false).show(ctx, |ui| {
        ui.heading("Overlays");
        ui.add_enabled_ui(support.0, |ui| ui.checkbox(&mut t.wireframe, "Wireframe (F2)"));
        if !support.0 {
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
        ui.checkbox(&mut t.map, "Map (M)");
        ui.separator();
        ui.heading("Camera");
        ui.horizontal(|ui| {
            for (i, p) in CameraPreset::ALL.iter().enumerate() {
                if ui.button(format!("{} ({})", p.name(), i + 1)).clicked() {
                    preset = Some(*p);
                }
            }
        });
        ui.separator();
        ui.heading("Stats");
        let frame_ms =
            diagnostics.get(&FrameTimeDiagnosticsPlugin::FRAME_TIME).and_then(|d| d.smoothed()).unwrap_or(0.0);
        ui.label(format!("frame time {frame_ms:.1} ms"));
        ui.label(format!(
            "chunks: {} resident, {} building, {} queued{}",
            stats.chunks_resident,
            stats.chunks_building,
            stats.chunks_queued,
            if loading.finished { String::new() } else { format!(" (loading {:.0}%)", loading.fraction() * 100.0) }
        ));
        ui.label(format!("triangles {}", stats.triangles));
        ui.label(format!("water columns {}, seam columns {}", stats.water_columns, stats.seam_columns));
        ui.label(format!("resident chunk data {:.1} MiB", stats.resident_bytes as f64 / (1024.0 * 1024.0)));
        if let Some((cam, _)) = cams.iter().next() {
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
    if t != *toggles {
        *toggles = t;
    }
    if let Some(p) = preset {
        for (mut tr, mut state) in &mut cams {
            *tr = p.transform(&world.source);
            let (yaw, pitch, _) = tr.rotation.to_euler(EulerRot::YXZ);
            state.yaw = yaw;
            state.pitch = pitch;
            state.velocity = Vec3::ZERO;
        }
    }
    Ok(())
}
