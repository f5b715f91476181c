//! The probe in the flight (SPEC §7): the column under the cursor, found by
//! [`crate::world::probe::cast`] along the camera's ray through the cursor, shown in the panel
//! every frame; a left click pins it with a marker and prints `probe: {json}` on stdout and in the
//! log (the same JSON `isla shot --probe` prints). The right button still looks around.

use super::IslandWorld;
use super::settings::{StreamSettings, Viewer};
use crate::world::lod::LodTree;
use crate::world::probe::{ProbeHit, Ruler, cast, level_at, probe_json};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

/// The hovered and the pinned probe.
#[derive(Resource, Debug, Default, Clone)]
pub struct ProbeState {
    /// The column under the cursor this frame, with its drawn height.
    pub hover: Option<ProbeHit>,
    /// The last click: where, and what it found.
    pub pinned: Option<(ProbeHit, serde_json::Value)>,
    /// The ruler's ends (clicks with its key held): the first alone until the second is placed.
    pub ruler: Vec<[f32; 3]>,
}

impl ProbeState {
    /// The ruler's figures once both ends are placed.
    pub fn ruler(&self) -> Option<Ruler> {
        match self.ruler[..] {
            [a, b] => Some(Ruler::between(a, b)),
            _ => None,
        }
    }
}

/// Colour of the ruler's line and ends.
pub const RULER_COLOUR: Color = Color::srgb(1.0, 0.85, 0.1);

/// Colour of the pinned probe's marker.
pub const PROBE_MARKER_COLOUR: Color = Color::srgb(1.0, 0.2, 0.9);

/// Clicks `fly --probe` and `--ruler` ask for, made at these window pixels (logical, from the top
/// left) once the first view is built.
#[derive(Resource, Debug, Clone, Default)]
pub struct StartClicks {
    pub probe: Option<[f32; 2]>,
    pub ruler: Vec<[f32; 2]>,
}

/// The probe's and the ruler's gizmos: drawn over the terrain, so a ruler across a ridge or a
/// marker behind a hill stays visible.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct InspectGizmos;

pub struct ProbePlugin;

impl Plugin for ProbePlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.insert_gizmo_config(InspectGizmos, GizmoConfig { depth_bias: -1.0, ..default() })
            .init_resource::<ProbeState>()
            .init_resource::<StartClicks>()
            .add_systems(Update, (probe_cursor, start_clicks).in_set(super::IslaSet::Input))
            .add_systems(Update, draw_marker.in_set(super::IslaSet::Render));
    }
}

fn probe_cursor(
    windows: Query<&Window, With<PrimaryWindow>>,
    cams: Query<(&Camera, &GlobalTransform), With<Viewer>>,
    world: Res<IslandWorld>,
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    wants: Option<Res<bevy_egui::input::EguiWantsInput>>,
    lod: Option<Res<super::server::Lod>>,
    settings: Res<StreamSettings>,
    mut state: ResMut<ProbeState>,
) {
    let (Ok(window), Some((camera, at))) = (windows.single(), cams.iter().next()) else { return };
    let over_panel = wants.is_some_and(|w| w.wants_any_pointer_input());
    let hit = window
        .cursor_position()
        .filter(|_| !over_panel)
        .and_then(|c| camera.viewport_to_world(at, c).ok())
        .and_then(|ray| cast(&world.source, ray.origin.to_array(), ray.direction.as_vec3().to_array()));
    if state.hover != hit {
        state.hover = hit;
    }
    let ruling = keys.pressed(super::input::key_of(super::settings::Action::Ruler));
    if buttons.just_pressed(MouseButton::Left) && !over_panel && ruling {
        if let Some(h) = hit {
            ruler_end(&mut state, h);
        }
    } else if buttons.just_pressed(MouseButton::Left) && !over_panel {
        let tree = if settings.lod { lod.as_ref().map(|l| &*l.0) } else { None };
        pin(&mut state, &world, tree, hit, at.translation().to_array());
    }
}

/// Pin the probe at `hit` (or report the sky): the panel's fields and one `probe: {json}` line.
fn pin(state: &mut ProbeState, world: &IslandWorld, tree: Option<&LodTree>, hit: Option<ProbeHit>, eye: [f32; 3]) {
    let level = hit.map_or(0, |h| level_at(tree, &h, eye));
    let json = probe_json(&world.source, hit, level);
    println!("probe: {json}");
    info!("probe: {json}");
    state.pinned = hit.map(|h| (h, json));
}

/// One end of the ruler; with both placed, its figures in the log.
fn ruler_end(state: &mut ProbeState, h: ProbeHit) {
    if state.ruler.len() == 2 {
        state.ruler.clear();
    }
    state.ruler.push(h.world);
    if let Some(r) = state.ruler() {
        info!(
            "ruler: {:.1} m ({:.1} m across), {:+.1} m, mean slope {:+.1} %",
            r.distance_m, r.horizontal_m, r.rise_m, r.slope_percent
        );
    }
}

/// `fly --probe` / `--ruler`: the same clicks, made once the first view is on screen.
fn start_clicks(
    mut clicks: ResMut<StartClicks>,
    loading: Res<super::server::Loading>,
    cams: Query<(&Camera, &GlobalTransform), With<Viewer>>,
    world: Res<IslandWorld>,
    lod: Option<Res<super::server::Lod>>,
    settings: Res<StreamSettings>,
    mut state: ResMut<ProbeState>,
) {
    if (clicks.probe.is_none() && clicks.ruler.is_empty()) || !loading.finished {
        return;
    }
    let Some((camera, at)) = cams.iter().next() else { return };
    let cast_at = |p: [f32; 2]| {
        camera
            .viewport_to_world(at, Vec2::from_array(p))
            .ok()
            .and_then(|ray| cast(&world.source, ray.origin.to_array(), ray.direction.as_vec3().to_array()))
    };
    for p in std::mem::take(&mut clicks.ruler) {
        match cast_at(p) {
            Some(h) => ruler_end(&mut state, h),
            None => warn!("ruler: window pixel {}, {} shows no ground", p[0], p[1]),
        }
    }
    if let Some(p) = clicks.probe.take() {
        let tree = if settings.lod { lod.as_ref().map(|l| &*l.0) } else { None };
        pin(&mut state, &world, tree, cast_at(p), at.translation().to_array());
    }
}

/// The pinned probe: a marker sized to stay visible from the camera's distance.
fn draw_marker(state: Res<ProbeState>, cams: Query<&GlobalTransform, With<Viewer>>, mut gizmos: Gizmos<InspectGizmos>) {
    let Some(cam) = cams.iter().next() else { return };
    // The ruler: its ends and the line between them.
    for p in &state.ruler {
        let p = Vec3::from_array(*p);
        gizmos.sphere(Isometry3d::from_translation(p), (cam.translation().distance(p) * 0.008).max(0.4), RULER_COLOUR);
    }
    if let [a, b] = state.ruler[..] {
        gizmos.line(Vec3::from_array(a), Vec3::from_array(b), RULER_COLOUR);
    }
    let Some((hit, _)) = &state.pinned else { return };
    let p = Vec3::from_array(hit.world);
    let r = (cam.translation().distance(p) * 0.01).max(0.5);
    gizmos.sphere(Isometry3d::from_translation(p), r, PROBE_MARKER_COLOUR);
    gizmos.line(p, p + Vec3::Y * r * 6.0, PROBE_MARKER_COLOUR);
}
