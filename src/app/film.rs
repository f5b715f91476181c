//! The film in the flight (SPEC §10): K adds the current view as a key to the path beside the
//! blueprint (`BLUEPRINT.path.toml`), P plays the path in the window in real time (a flight key
//! stops it), L draws it — its line and a marker per key — and the panel lists its keys.

use super::input::Action;
use super::settings::{DebugToggles, StreamSettings, SunSettings, Viewer};
use crate::film::{Film, PathFile};
use bevy::prelude::*;
use std::path::PathBuf;

/// The path beside the blueprint: its file, the film when it has two keys or more, the keys'
/// positions and the camera's line (for drawing), and why it does not load, if it does not.
#[derive(Resource, Debug, Default)]
pub struct PathOf {
    pub blueprint: Option<PathBuf>,
    pub film: Option<Film>,
    pub keys: Vec<[f32; 3]>,
    pub line: Vec<Vec3>,
    pub problem: Option<String>,
}

impl PathOf {
    /// The path beside `blueprint`, read now (a file that does not load is kept as a problem).
    pub fn read(blueprint: Option<PathBuf>) -> Self {
        let mut of = PathOf { blueprint, ..Default::default() };
        of.reload();
        of
    }

    fn reload(&mut self) {
        (self.film, self.keys, self.line, self.problem) = (None, Vec::new(), Vec::new(), None);
        let Some(bp) = &self.blueprint else { return };
        let file = crate::film::path_beside(bp);
        if !file.is_file() {
            return;
        }
        match PathFile::load(&file) {
            Ok(p) => {
                self.keys = p.keys.iter().map(|k| k.from).collect();
                let film = Film::new(p);
                self.line = crate::film::polyline(&film, 0.05).into_iter().map(Vec3::from_array).collect();
                self.film = Some(film);
            }
            Err(e) => {
                // One key is a path on its way: show it, say what it needs.
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                self.keys = one_key_positions(&text);
                self.problem = Some(e.to_string());
            }
        }
    }
}

/// The `view` strings' positions of a path file's keys (a path of one key does not load).
fn one_key_positions(text: &str) -> Vec<[f32; 3]> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("view = \"")?.strip_suffix('"')?.parse::<crate::view::View>().ok())
        .map(|v| v.from)
        .collect()
}

/// The path playing in the window: started at this many seconds of the app's clock.
#[derive(Resource, Debug, Clone, Copy)]
pub struct Playing(pub f64);

pub struct FilmPlugin;

impl Plugin for FilmPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.init_resource::<PathOf>()
            .add_systems(Update, (add_key, play_or_stop).in_set(super::IslaSet::Apply))
            .add_systems(PostUpdate, play.before(bevy::transform::TransformSystems::Propagate));
    }
}

/// The path drawn when the view switch `path` is on (L in the flight), in the window and in
/// headless renders: part of the scene.
pub struct PathDrawPlugin;

impl Plugin for PathDrawPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.init_resource::<PathOf>();
        // Drawn where gizmos are (the window and the headless renderer; not a bare test app).
        if app.world().contains_resource::<bevy::gizmos::config::GizmoConfigStore>() {
            app.add_systems(Update, draw_path.in_set(super::IslaSet::Apply));
        }
    }
}

/// K: the current view appended as a key; the log and stdout say where.
fn add_key(
    mut actions: MessageReader<Action>,
    mut of: ResMut<PathOf>,
    cams: Query<&Transform, With<Viewer>>,
    sun: Res<SunSettings>,
    toggles: Res<DebugToggles>,
    settings: Res<StreamSettings>,
) {
    if !actions.read().any(|a| *a == Action::AddPathKey) {
        return;
    }
    let (Some(blueprint), Some(cam)) = (of.blueprint.clone(), cams.iter().next()) else { return };
    let view = super::input::current_view(cam, &sun, &toggles, settings.lod);
    match crate::film::append_key(&blueprint, &view) {
        Ok((n, file)) => {
            println!("film: key {n} added to {}: {view}", file.display());
            info!("film: key {n} added to {}: {view}", file.display());
            of.reload();
        }
        Err(e) => warn!("film: key not added: {e}"),
    }
}

/// P starts the path (or stops it); a flight key stops it.
fn play_or_stop(
    mut commands: Commands,
    mut actions: MessageReader<Action>,
    of: Res<PathOf>,
    playing: Option<Res<Playing>>,
    time: Res<Time>,
) {
    const FLIGHT: [Action; 6] = [Action::Forward, Action::Back, Action::Left, Action::Right, Action::Up, Action::Down];
    for a in actions.read() {
        match (a, &playing) {
            (Action::PlayPath, Some(_)) => {
                commands.remove_resource::<Playing>();
                info!("film: stopped");
            }
            (Action::PlayPath, None) => match (&of.film, &of.problem) {
                (Some(f), _) => {
                    commands.insert_resource(Playing(time.elapsed_secs_f64()));
                    info!(
                        "film: playing {} ({} keys, {:.1} s)",
                        f.file.path.display(),
                        f.file.keys.len(),
                        f.file.duration_s()
                    );
                }
                (None, Some(p)) => warn!("film: no path to play: {p}"),
                (None, None) => warn!("film: no path to play: K adds the current view as a key"),
            },
            (a, Some(_)) if FLIGHT.contains(a) => {
                commands.remove_resource::<Playing>();
                info!("film: stopped by a flight key");
            }
            _ => {}
        }
    }
}

/// While playing: the camera and the sun where the path has them now; at its end, stop.
fn play(
    mut commands: Commands,
    playing: Option<Res<Playing>>,
    of: Res<PathOf>,
    time: Res<Time>,
    mut cams: Query<&mut Transform, With<Viewer>>,
    mut sun: ResMut<SunSettings>,
) {
    let (Some(p), Some(film)) = (playing, &of.film) else { return };
    let t = (time.elapsed_secs_f64() - p.0) as f32;
    if t > film.file.duration_s() {
        commands.remove_resource::<Playing>();
        info!("film: played to the end");
        return;
    }
    let pose = film.pose(t);
    let from = Vec3::from_array(pose.from);
    for mut cam in &mut cams {
        *cam = super::camera::look(from, from + Vec3::from_array(pose.forward) * 100.0);
    }
    let s = SunSettings::from(pose.sun);
    if (s.elevation_deg, s.azimuth_deg) != (sun.elevation_deg, sun.azimuth_deg) {
        *sun = s;
    }
}

/// The view switch `path` (L): the path's line (yellow, the camera's positions every 50 ms) and
/// a marker per key (a white sphere, 12 m across).
fn draw_path(of: Res<PathOf>, toggles: Res<DebugToggles>, mut gizmos: Gizmos) {
    if !toggles.path_line {
        return;
    }
    const LINE: Color = Color::srgb(1.0, 0.85, 0.1);
    if of.line.len() > 1 {
        gizmos.linestrip(of.line.iter().copied(), LINE);
    }
    for k in &of.keys {
        gizmos.sphere(Isometry3d::from_translation(Vec3::from_array(*k)), 12.0, Color::WHITE);
    }
}
