//! The debug panel of the flight (SPEC §7), in egui: toggles with keys, camera presets as buttons,
//! and live stats. While the pointer or keyboard is over the panel, the camera does not move.

use super::IslandWorld;
use super::camera::CameraPreset;
use super::debug::WireframeSupport;
use super::server::{Loading, WorldStats};
use super::settings::DebugToggles;
use crate::mesh::Shading;
use bevy::camera_controller::free_camera::FreeCameraState;
use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};

pub struct DebugPanelPlugin;

impl Plugin for DebugPanelPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<FrameTimeDiagnosticsPlugin>() {
            app.add_plugins(FrameTimeDiagnosticsPlugin::default());
        }
        app.add_plugins(EguiPlugin::default())
            .add_systems(Update, gate_camera_input.in_set(super::IslaSet::Input))
            .add_systems(EguiPrimaryContextPass, panel_ui.run_if(|t: Res<DebugToggles>| t.panel));
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
    lod: Res<super::server::Lod>,
    loading: Res<Loading>,
    diagnostics: Res<DiagnosticsStore>,
    world: Res<IslandWorld>,
    mut cams: Query<(&mut Transform, &mut FreeCameraState), With<Camera3d>>,
    mut view_requests: MessageWriter<super::input::ViewRequested>,
) -> Result {
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
        ui.checkbox(&mut t.lod_colours, "Level of detail coloured (F10)");
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
        if ui.button("Print the view string (V)").clicked() {
            view_requests.write(super::input::ViewRequested);
        }
        ui.separator();
        ui.heading("Stats");
        let frame_ms =
            diagnostics.get(&FrameTimeDiagnosticsPlugin::FRAME_TIME).and_then(|d| d.smoothed()).unwrap_or(0.0);
        ui.label(format!("frame time {frame_ms:.1} ms"));
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
