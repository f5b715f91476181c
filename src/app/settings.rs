//! The settings the app shares, in one module that imports nothing else from `app`: the view
//! toggles, the sun, how the world streams, the mesh style, the viewer, and the [`Action`]s keys
//! and panels send. Every other module reads these; the plugin that owns a part of the scene
//! applies what changed (SPEC §7: one source of truth).

use crate::mesh::Shading;
use bevy::prelude::*;

pub use crate::view::{SUN_AZIMUTH_DEG, SUN_ELEVATION_DEG};

/// What a key, a panel button or a slider asks for. Systems that want a shared setting changed
/// send one as a message; [`SettingsPlugin`] applies those that change the toggles and the sun,
/// and the plugin that owns the camera or the view applies the rest. No system writes another's
/// resource.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    // Free camera.
    Forward,
    Back,
    Left,
    Right,
    Up,
    Down,
    Boost,
    ToggleGrab,
    SnapReverse,
    AxisTop,
    AxisRight,
    AxisFront,
    // Camera presets.
    Preset(usize),
    // Sun.
    SunWest,
    SunEast,
    SunLower,
    SunRaise,
    /// Set the sun (the panel's sliders), in hundredths of a degree.
    SetSun {
        elevation_cdeg: i32,
        azimuth_cdeg: i32,
    },
    // Overlays (toggles of `DebugToggles`).
    Panel,
    Wireframe,
    ChunkBorders,
    Water,
    Shadows,
    Sky,
    Fog,
    CycleShading,
    SeamHighlight,
    LodColours,
    Map,
    /// Set the shading (the panel's choice; the key cycles with [`Action::CycleShading`]).
    SetShading(Shading),
    // Views.
    PrintView,
    SaveView,
    /// Held: left clicks place the ruler's ends instead of pinning the probe.
    Ruler,
    /// Jump to the saved view at this index (the panel's list).
    JumpToSaved(usize),
    // Films (SPEC §10).
    /// Add the current view as a key to the path beside the blueprint.
    AddPathKey,
    /// Play the path in the window (again: stop it).
    PlayPath,
    /// Draw the path: its line and a marker per key.
    PathLine,
}

/// The shared settings and the one system that changes them: every plugin that reads a setting
/// adds this (once, through [`ensure`]), so each setting has one owner and one default.
pub struct SettingsPlugin;

impl Plugin for SettingsPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<Action>()
            .init_resource::<DebugToggles>()
            .init_resource::<SunSettings>()
            .init_resource::<StreamSettings>()
            .add_systems(Update, apply_actions.in_set(super::IslaSet::Input));
    }
}

/// Add [`SettingsPlugin`] unless an earlier plugin did.
pub fn ensure(app: &mut App) {
    if !app.is_plugin_added::<SettingsPlugin>() {
        app.add_plugins(SettingsPlugin);
    }
}

/// Degrees the sun moves per second while its keys are held.
pub const SUN_DEG_PER_S: f32 = 30.0;

/// Apply this frame's actions to the toggles and the sun. A resource is written only when it
/// changes, so the plugins that follow it (`run_if(resource_changed)`) rebuild only then.
pub fn apply_actions(
    mut actions: MessageReader<Action>,
    time: Res<Time>,
    mut toggles: ResMut<DebugToggles>,
    mut sun: ResMut<SunSettings>,
) {
    let (mut t, mut s) = (*toggles, *sun);
    let step = SUN_DEG_PER_S * time.delta_secs();
    for &action in actions.read() {
        t.apply(action);
        s.apply(action, step);
    }
    if t != *toggles {
        *toggles = t;
    }
    if s.elevation_deg != sun.elevation_deg || s.azimuth_deg != sun.azimuth_deg {
        *sun = s;
    }
}

/// Every overlay and view toggle.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct DebugToggles {
    pub panel: bool,
    pub wireframe: bool,
    pub chunk_borders: bool,
    pub water: bool,
    pub shadows: bool,
    pub sky: bool,
    pub fog: bool,
    pub shading: Shading,
    pub seam_highlight: bool,
    /// Tint every level of detail in its own colour.
    pub lod_colours: bool,
    pub map: bool,
    /// Draw the path beside the blueprint (`BLUEPRINT.path.toml`): its line, a marker per key.
    pub path_line: bool,
}

impl DebugToggles {
    /// The state of the toggle `action` flips, in words (for the log).
    pub fn describe(&self, action: Action) -> String {
        use Action as A;
        let on = |b: bool| if b { "on" } else { "off" }.to_string();
        match action {
            A::Panel => on(self.panel),
            A::Wireframe => on(self.wireframe),
            A::ChunkBorders => on(self.chunk_borders),
            A::Water => on(self.water),
            A::Shadows => on(self.shadows),
            A::Sky => on(self.sky),
            A::Fog => on(self.fog),
            A::CycleShading => self.shading.name().to_string(),
            A::SeamHighlight => on(self.seam_highlight),
            A::LodColours => on(self.lod_colours),
            A::Map => on(self.map),
            A::PathLine => on(self.path_line),
            _ => String::new(),
        }
    }

    /// Apply a key's action; actions that are not toggles leave the toggles alone.
    pub fn apply(&mut self, action: Action) {
        use Action as A;
        match action {
            A::Panel => self.panel = !self.panel,
            A::Wireframe => self.wireframe = !self.wireframe,
            A::ChunkBorders => self.chunk_borders = !self.chunk_borders,
            A::Water => self.water = !self.water,
            A::Shadows => self.shadows = !self.shadows,
            A::Sky => self.sky = !self.sky,
            A::Fog => self.fog = !self.fog,
            A::CycleShading => {
                self.shading = match self.shading {
                    Shading::Palette => Shading::Normals,
                    Shading::Normals => Shading::Materials,
                    Shading::Materials => Shading::Palette,
                }
            }
            A::SeamHighlight => self.seam_highlight = !self.seam_highlight,
            A::LodColours => self.lod_colours = !self.lod_colours,
            A::Map => self.map = !self.map,
            A::PathLine => self.path_line = !self.path_line,
            A::SetShading(s) => self.shading = s,
            _ => {}
        }
    }
}

impl DebugToggles {
    /// The toggles a view's switches ask for (the panel and the map closed).
    pub fn of_view(s: &crate::view::Switches) -> Self {
        Self {
            shadows: s.shadows,
            sky: s.sky,
            water: s.water,
            fog: s.fog,
            wireframe: s.wireframe,
            chunk_borders: s.chunk_borders,
            shading: s.shading,
            seam_highlight: s.seam_highlight,
            lod_colours: s.lod_colours,
            path_line: s.path,
            ..Default::default()
        }
    }

    /// The view switches of these toggles (what a view string keeps).
    pub fn switches(&self) -> crate::view::Switches {
        crate::view::Switches {
            shadows: self.shadows,
            sky: self.sky,
            water: self.water,
            fog: self.fog,
            wireframe: self.wireframe,
            chunk_borders: self.chunk_borders,
            seam_highlight: self.seam_highlight,
            lod_colours: self.lod_colours,
            path: self.path_line,
            shading: self.shading,
        }
    }
}

impl Default for DebugToggles {
    fn default() -> Self {
        Self {
            panel: false,
            wireframe: false,
            chunk_borders: false,
            water: true,
            shadows: true,
            sky: true,
            fog: true,
            shading: Shading::Palette,
            seam_highlight: false,
            lod_colours: false,
            map: false,
            path_line: false,
        }
    }
}

/// The camera whose position drives streaming.
#[derive(Component, Debug, Default, Clone, Copy)]
pub struct Viewer;

/// How node meshes are built: the debug overlays' shading and seam highlight, read from
/// [`DebugToggles`] (the one source of truth). Changing it rebuilds every resident node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeshStyle {
    pub shading: Shading,
    pub highlight_seam: bool,
}

impl MeshStyle {
    pub fn of(t: &DebugToggles) -> Self {
        Self { shading: t.shading, highlight_seam: t.seam_highlight }
    }
    /// The debug looks whose water colours are per cell (the seam highlight, normals, materials):
    /// the water's per-pixel body would paint over them.
    pub fn colours_water_per_cell(&self) -> bool {
        self.highlight_seam || self.shading != Shading::Palette
    }
}

/// How the server streams.
#[derive(Resource, Debug, Clone, Copy)]
pub struct StreamSettings {
    /// Level of detail on (the quadtree to the horizon) or off (every chunk within the view
    /// distance at full detail, as before level of detail existed).
    pub lod: bool,
    /// With `lod` off: chunks within this distance are resident.
    pub view_distance_m: f32,
    /// Build jobs queued or running at once.
    pub max_in_flight: usize,
    /// Node replacements per frame (0 = unbounded).
    pub max_swaps_per_frame: usize,
}

/// How the world streams as a command asks for it, carried whole from the command line
/// (`StreamArgs`) to the app: level of detail on or off, and the view distance with it off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Streaming {
    pub lod: bool,
    pub view_distance_m: f32,
}

impl Default for Streaming {
    fn default() -> Self {
        Self { lod: true, view_distance_m: DEFAULT_VIEW_DISTANCE_M }
    }
}

/// Default view distance with level of detail off: enough to hold a 4 km island (the default
/// blueprint) whole from the overview, and beyond the shadow reach of SPEC §5.
pub const DEFAULT_VIEW_DISTANCE_M: f32 = 7000.0;

impl Default for StreamSettings {
    fn default() -> Self {
        Self { lod: true, view_distance_m: DEFAULT_VIEW_DISTANCE_M, max_in_flight: 64, max_swaps_per_frame: 64 }
    }
}

/// Unit vector from the ground towards the sun.
pub fn sun_direction(elevation_deg: f32, azimuth_deg: f32) -> Vec3 {
    let (el, az) = (elevation_deg.to_radians(), azimuth_deg.to_radians());
    // North is −Z, east is +X.
    Vec3::new(el.cos() * az.sin(), el.sin(), -el.cos() * az.cos()).normalize()
}

#[derive(Component)]
pub struct Sun;

/// Settings a shot or the flight can change.
#[derive(Resource, Debug, Clone, Copy)]
pub struct SunSettings {
    pub elevation_deg: f32,
    pub azimuth_deg: f32,
}

impl SunSettings {
    /// Move the sun by `step_deg` for a sun action (held keys send one a frame); other actions
    /// leave it. The elevation stays within 2–89° and the azimuth within 0–360°.
    pub fn apply(&mut self, action: Action, step_deg: f32) {
        if let Action::SetSun { elevation_cdeg, azimuth_cdeg } = action {
            self.elevation_deg = (elevation_cdeg as f32 / 100.0).clamp(2.0, 89.0);
            self.azimuth_deg = (azimuth_cdeg as f32 / 100.0).rem_euclid(360.0);
            return;
        }
        let (d_az, d_el) = match action {
            Action::SunEast => (step_deg, 0.0),
            Action::SunWest => (-step_deg, 0.0),
            Action::SunRaise => (0.0, step_deg),
            Action::SunLower => (0.0, -step_deg),
            _ => return,
        };
        self.azimuth_deg = (self.azimuth_deg + d_az).rem_euclid(360.0);
        self.elevation_deg = (self.elevation_deg + d_el).clamp(2.0, 89.0);
    }
}

pub use crate::view::{DAY_ARC_HOURS, DAY_ARC_NOON_ELEVATION_DEG};

impl SunSettings {
    /// The sun at `hour` (6–18) on the day arc: azimuth from 90° (east) through 180° (south) to
    /// 270° (west), elevation `noon · sin(π · (hour − 6) / 12)`, at least 2°.
    pub fn at_hour(hour: f32) -> Self {
        crate::view::Sun::at_hour(hour).into()
    }

    /// The hour at which the day arc puts the sun where `self` is, or `None` when this sun is off
    /// the arc (the default sun, 38° up in the north-east, is: no hour of the arc gives it). Both
    /// angles must agree to two hundredths of a degree: [`Self::set_action`] rounds each to a
    /// hundredth, and the elevation follows the rounded azimuth.
    pub fn hour_on_arc(&self) -> Option<f32> {
        let [h0, h1] = DAY_ARC_HOURS;
        if !(90.0..=270.0).contains(&self.azimuth_deg) {
            return None;
        }
        let hour = h0 + (h1 - h0) * (self.azimuth_deg - 90.0) / 180.0;
        let on = Self::at_hour(hour);
        let close = |a: f32, b: f32| (a - b).abs() <= 0.02;
        (close(on.elevation_deg, self.elevation_deg) && close(on.azimuth_deg, self.azimuth_deg)).then_some(hour)
    }

    /// The action that sets the sun to `self` (to a hundredth of a degree).
    pub fn set_action(&self) -> Action {
        Action::SetSun {
            elevation_cdeg: (self.elevation_deg * 100.0).round() as i32,
            azimuth_cdeg: (self.azimuth_deg * 100.0).round() as i32,
        }
    }
}

impl From<crate::view::Sun> for SunSettings {
    fn from(s: crate::view::Sun) -> Self {
        Self { elevation_deg: s.elevation_deg, azimuth_deg: s.azimuth_deg }
    }
}

impl From<SunSettings> for crate::view::Sun {
    fn from(s: SunSettings) -> Self {
        Self { elevation_deg: s.elevation_deg, azimuth_deg: s.azimuth_deg }
    }
}

impl Default for SunSettings {
    fn default() -> Self {
        Self { elevation_deg: SUN_ELEVATION_DEG, azimuth_deg: SUN_AZIMUTH_DEG }
    }
}
