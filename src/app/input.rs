//! Every key the flight reads, in one table: the panel, the help text, the README and the free
//! camera are all built from [`KEY_TABLE`], so no key can do two things (a test checks that,
//! the free camera's own bindings included).
//!
//! Bevy's `FreeCamera` ships with M as its pointer-grab toggle; the map owns M here, so the
//! camera is built by [`free_camera`] with every binding set from this table (G grabs).

use bevy::camera_controller::free_camera::FreeCamera;
use bevy::prelude::*;

pub use super::settings::Action;

/// One binding: the key, how the panel and README name it, and what it does in words.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub key: KeyCode,
    pub label: &'static str,
    pub action: Action,
    pub what: &'static str,
}

const fn b(key: KeyCode, label: &'static str, action: Action, what: &'static str) -> Binding {
    Binding { key, label, action, what }
}

/// The whole keyboard map of the flight.
pub const KEY_TABLE: &[Binding] = &[
    b(KeyCode::KeyW, "W", Action::Forward, "fly forward"),
    b(KeyCode::KeyS, "S", Action::Back, "fly back"),
    b(KeyCode::KeyA, "A", Action::Left, "fly left"),
    b(KeyCode::KeyD, "D", Action::Right, "fly right"),
    b(KeyCode::KeyE, "E", Action::Up, "up"),
    b(KeyCode::KeyQ, "Q", Action::Down, "down"),
    b(KeyCode::ShiftLeft, "Left Shift", Action::Boost, "speed boost (hold)"),
    b(KeyCode::KeyG, "G", Action::ToggleGrab, "grab / release the pointer"),
    b(KeyCode::ControlLeft, "Left Ctrl", Action::SnapReverse, "with a numpad snap key: snap the other way"),
    b(KeyCode::Numpad7, "Numpad 7", Action::AxisTop, "snap the view to the vertical axis"),
    b(KeyCode::Numpad3, "Numpad 3", Action::AxisRight, "snap the view to the X axis"),
    b(KeyCode::Numpad1, "Numpad 1", Action::AxisFront, "snap the view to the Z axis"),
    b(KeyCode::Digit1, "1", Action::Preset(0), "camera preset: overview"),
    b(KeyCode::Digit2, "2", Action::Preset(1), "camera preset: coast"),
    b(KeyCode::Digit3, "3", Action::Preset(2), "camera preset: crater"),
    b(KeyCode::Digit4, "4", Action::Preset(3), "camera preset: underwater"),
    b(KeyCode::BracketLeft, "[", Action::SunWest, "turn the sun anticlockwise"),
    b(KeyCode::BracketRight, "]", Action::SunEast, "turn the sun clockwise"),
    b(KeyCode::Minus, "-", Action::SunLower, "lower the sun"),
    b(KeyCode::Equal, "=", Action::SunRaise, "raise the sun"),
    b(KeyCode::F1, "F1", Action::Panel, "debug panel"),
    b(KeyCode::F2, "F2", Action::Wireframe, "wireframe"),
    b(KeyCode::F3, "F3", Action::ChunkBorders, "chunk borders"),
    b(KeyCode::F4, "F4", Action::Water, "water sheet"),
    b(KeyCode::F5, "F5", Action::Shadows, "shadows"),
    b(KeyCode::F6, "F6", Action::Sky, "sky"),
    b(KeyCode::F7, "F7", Action::Fog, "fog"),
    b(KeyCode::F8, "F8", Action::CycleShading, "shading: palette → normals → materials"),
    b(KeyCode::F9, "F9", Action::SeamHighlight, "seam columns highlighted"),
    b(KeyCode::F10, "F10", Action::LodColours, "level of detail coloured"),
    b(KeyCode::KeyM, "M", Action::Map, "map"),
    b(KeyCode::KeyV, "V", Action::PrintView, "print the current view string (stdout and the log)"),
    b(KeyCode::KeyR, "R", Action::Ruler, "ruler (hold): left clicks place its two ends"),
    b(KeyCode::KeyB, "B", Action::SaveView, "save the current view beside the blueprint (BLUEPRINT.views.toml)"),
    b(KeyCode::KeyK, "K", Action::AddPathKey, "add the current view as a key to the path (BLUEPRINT.path.toml)"),
    b(KeyCode::KeyP, "P", Action::PlayPath, "play the path in the window (a flight key stops it)"),
    b(KeyCode::KeyL, "L", Action::PathLine, "path drawn: its line and a marker per key (the view switch `on=path`)"),
];

/// The key bound to `action` (every action has exactly one).
pub fn key_of(action: Action) -> KeyCode {
    binding(action).key
}

/// The binding of `action`.
pub fn binding(action: Action) -> &'static Binding {
    KEY_TABLE.iter().find(|b| b.action == action).expect("every action is in KEY_TABLE")
}

/// The action bound to `key`, if any.
pub fn action_of(key: KeyCode) -> Option<Action> {
    KEY_TABLE.iter().find(|b| b.key == key).map(|b| b.action)
}

/// Actions whose key was pressed this frame, in table order.
pub fn just_pressed(keys: &ButtonInput<KeyCode>) -> impl Iterator<Item = Action> + '_ {
    KEY_TABLE.iter().filter(|b| keys.just_pressed(b.key)).map(|b| b.action)
}

/// The free camera with every keyboard binding taken from [`KEY_TABLE`] (none left at Bevy's
/// defaults), at speeds for a kilometre-scale island.
pub fn free_camera() -> FreeCamera {
    FreeCamera {
        key_forward: key_of(Action::Forward),
        key_back: key_of(Action::Back),
        key_left: key_of(Action::Left),
        key_right: key_of(Action::Right),
        key_up: key_of(Action::Up),
        key_down: key_of(Action::Down),
        key_run: key_of(Action::Boost),
        keyboard_key_toggle_cursor_grab: key_of(Action::ToggleGrab),
        key_snap_reverse: key_of(Action::SnapReverse),
        axis_top: key_of(Action::AxisTop),
        axis_right: key_of(Action::AxisRight),
        axis_front: key_of(Action::AxisFront),
        mouse_key_cursor_grab: MouseButton::Right,
        walk_speed: 60.0,
        run_speed: 300.0,
        ..default()
    }
}

/// Every keyboard key the given free camera reads, with the table action it must be bound to.
pub fn free_camera_keys(c: &FreeCamera) -> [(KeyCode, Action); 12] {
    [
        (c.key_forward, Action::Forward),
        (c.key_back, Action::Back),
        (c.key_left, Action::Left),
        (c.key_right, Action::Right),
        (c.key_up, Action::Up),
        (c.key_down, Action::Down),
        (c.key_run, Action::Boost),
        (c.keyboard_key_toggle_cursor_grab, Action::ToggleGrab),
        (c.key_snap_reverse, Action::SnapReverse),
        (c.axis_top, Action::AxisTop),
        (c.axis_right, Action::AxisRight),
        (c.axis_front, Action::AxisFront),
    ]
}

/// Pairs of actions that share a key in the table, plus free-camera keys bound to a table key of
/// another action. Empty when the keyboard map is sound.
pub fn key_conflicts(camera: &FreeCamera) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in KEY_TABLE.iter().enumerate() {
        for b in &KEY_TABLE[i + 1..] {
            if a.key == b.key {
                out.push(format!("{} is bound to both {:?} and {:?}", a.label, a.action, b.action));
            }
        }
    }
    for (key, expected) in free_camera_keys(camera) {
        match action_of(key) {
            Some(a) if a == expected => {}
            Some(a) => out.push(format!("free camera {expected:?} key {key:?} is the table's key for {a:?}")),
            None => out.push(format!("free camera {expected:?} key {key:?} is not in the key table")),
        }
    }
    out
}

/// Markdown rows of the key table, as the README's controls table shows them.
pub fn help_rows() -> Vec<String> {
    KEY_TABLE.iter().map(|b| format!("| {} | {} |", b.label, b.what)).collect()
}

/// The flight's keys: they send [`Action`] messages first in the frame
/// ([`super::IslaSet::Input`]), before [`super::settings::apply_actions`] applies them. This
/// plugin also owns what the actions do to the camera (presets) and the view string.
pub struct InputPlugin;

impl Plugin for InputPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.add_systems(Update, send_key_actions.before(super::settings::apply_actions).in_set(super::IslaSet::Input))
            .init_resource::<SavedViewsOf>()
            .add_systems(Update, (jump_to_preset, print_view, save_view, jump_to_saved).in_set(super::IslaSet::Apply));
    }
}

/// The blueprint whose saved views [`Action::SaveView`] appends to (none: saving is off), and the
/// views saved beside it (read once at the start, then kept as they are saved).
#[derive(Resource, Debug, Clone, Default)]
pub struct SavedViewsOf(pub Option<std::path::PathBuf>, pub Vec<(String, crate::view::View)>);

impl SavedViewsOf {
    /// The saved views of `blueprint`, read from beside it (a bad file is logged and left alone).
    pub fn read(blueprint: Option<std::path::PathBuf>) -> Self {
        let mut views = Vec::new();
        if let Some(b) = &blueprint {
            match crate::views::names(b) {
                Ok(names) => {
                    views = names.into_iter().filter_map(|n| crate::views::load(b, &n).ok().map(|v| (n, v))).collect()
                }
                Err(e) => warn!("view: saved views not read: {e}"),
            }
        }
        Self(blueprint, views)
    }
}

/// Save the current view beside the blueprint, once per [`Action::SaveView`]; the log and stdout
/// say under which name and where, or why not.
fn save_view(
    mut actions: MessageReader<Action>,
    mut of: ResMut<SavedViewsOf>,
    cams: Query<&Transform, With<crate::app::settings::Viewer>>,
    sun: Res<crate::app::settings::SunSettings>,
    toggles: Res<crate::app::settings::DebugToggles>,
    settings: Res<crate::app::settings::StreamSettings>,
) {
    if !actions.read().any(|a| *a == Action::SaveView) {
        return;
    }
    let (Some(blueprint), Some(cam)) = (of.0.clone(), cams.iter().next()) else { return };
    let view = current_view(cam, &sun, &toggles, settings.lod);
    match crate::views::save(&blueprint, &view) {
        Ok((name, file)) => {
            println!("view: saved {name} to {}: {view}", file.display());
            info!("view: saved {name} to {}: {view}", file.display());
            of.1.push((name, view));
        }
        Err(e) => warn!("view: not saved: {e}"),
    }
}

/// Keys send their actions, unless a panel has the keyboard: a press once, the sun's keys every
/// frame they are held. A toggle's new state is logged as the key's line.
fn send_key_actions(
    keys: Res<ButtonInput<KeyCode>>,
    toggles: Res<super::settings::DebugToggles>,
    wants: Option<Res<bevy_egui::input::EguiWantsInput>>,
    mut out: MessageWriter<Action>,
) {
    if wants.is_some_and(|w| w.wants_any_keyboard_input()) {
        return;
    }
    const SUN: [Action; 4] = [Action::SunEast, Action::SunWest, Action::SunRaise, Action::SunLower];
    let mut t = *toggles;
    for action in just_pressed(&keys).filter(|a| !SUN.contains(a)) {
        let before = t;
        t.apply(action);
        if t != before {
            info!("input: {} ({}) → {}", binding(action).label, binding(action).what, t.describe(action));
        }
        out.write(action);
    }
    for action in SUN {
        if keys.pressed(key_of(action)) {
            out.write(action);
        }
    }
}

/// Metres ahead of the camera the printed view's target lies.
const VIEW_TARGET_M: f32 = 100.0;

/// The view the camera shows now: its position, a point ahead of it, the sun, the switches and
/// the level of detail.
pub fn current_view(
    cam: &Transform,
    sun: &crate::app::settings::SunSettings,
    toggles: &crate::app::settings::DebugToggles,
    lod: bool,
) -> crate::view::View {
    let from = cam.translation;
    let at = from + cam.forward() * VIEW_TARGET_M;
    crate::view::View {
        from: from.to_array(),
        at: at.to_array(),
        sun: (*sun).into(),
        switches: toggles.switches(),
        lod,
    }
}

/// Print the current view string on stdout and in the log, once per [`Action::PrintView`].
fn print_view(
    mut actions: MessageReader<Action>,
    cams: Query<&Transform, With<crate::app::settings::Viewer>>,
    sun: Res<crate::app::settings::SunSettings>,
    toggles: Res<crate::app::settings::DebugToggles>,
    settings: Res<crate::app::settings::StreamSettings>,
) {
    if !actions.read().any(|a| *a == Action::PrintView) {
        return;
    }
    let Some(cam) = cams.iter().next() else { return };
    let view = current_view(cam, &sun, &toggles, settings.lod);
    println!("view: {view}");
    info!("view: {view}");
}

/// [`Action::JumpToSaved`] (the panel's list) moves the camera to a saved view and sets its sun.
fn jump_to_saved(
    mut actions: MessageReader<Action>,
    of: Res<SavedViewsOf>,
    mut sun: ResMut<crate::app::settings::SunSettings>,
    mut cams: Query<(&mut Transform, &mut bevy::camera_controller::free_camera::FreeCameraState), With<Camera3d>>,
) {
    let Some(i) = actions.read().filter_map(|a| if let Action::JumpToSaved(i) = a { Some(*i) } else { None }).last()
    else {
        return;
    };
    let Some((name, v)) = of.1.get(i) else { return };
    for (mut t, mut state) in &mut cams {
        place_camera(&mut t, &mut state, crate::app::camera::look(Vec3::from_array(v.from), Vec3::from_array(v.at)));
    }
    *sun = v.sun.into();
    info!("camera: saved view {name}");
}

/// [`Action::Preset`] (keys 1–4, the panel's buttons) moves the camera to that preset.
fn jump_to_preset(
    mut actions: MessageReader<Action>,
    world: Res<crate::app::IslandWorld>,
    mut cams: Query<(&mut Transform, &mut bevy::camera_controller::free_camera::FreeCameraState), With<Camera3d>>,
) {
    let Some(i) = actions.read().filter_map(|a| if let Action::Preset(i) = a { Some(*i) } else { None }).last() else {
        return;
    };
    let preset = crate::app::camera::CameraPreset::ALL[i];
    for (mut t, mut state) in &mut cams {
        place_camera(&mut t, &mut state, preset.transform(&world.source));
    }
    info!("camera: preset {}", preset.name());
}

/// Put the free camera at `to`, its yaw and pitch taken from it and its motion stopped.
fn place_camera(t: &mut Transform, state: &mut bevy::camera_controller::free_camera::FreeCameraState, to: Transform) {
    *t = to;
    let (yaw, pitch, _) = t.rotation.to_euler(EulerRot::YXZ);
    state.yaw = yaw;
    state.pitch = pitch;
    state.velocity = Vec3::ZERO;
}
