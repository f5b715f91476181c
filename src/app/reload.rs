//! Reload on change (SPEC §6 "Reload"): `fly` watches the blueprint it was started with and,
//! when another program rewrites it, swaps the island for the new one without a restart.
//!
//! - **Watching** is a poll of the file's size and modification time at most every
//!   [`POLL_INTERVAL`] of wall time (`Time<Real>`), never per frame.
//! - **Debounce:** a changed signature is only read once the next poll sees it unchanged, so a
//!   file written in place (not renamed) is not read half-written. A writer that pauses longer
//!   than that mid-write gets its half file refused, and the finished file read at its next change.
//! - **Off the frame:** the read, the world source and the level-of-detail tree are built on a
//!   thread; the frame only swaps resources in when they are ready ([`super::server::replace_world`]).
//!   A file that changed again while it was being read is dropped and read at its next stable poll.
//! - **Never a half world:** the old island stays on screen until the new one's first view is built
//!   (the server retires it then), and a file the reader refuses leaves the island as it is, with the
//!   reader's one-line error in the log and the panel.

use super::IslandWorld;
use crate::world::WorldSource;
use crate::world::lod::LodTree;
use bevy::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How often the blueprint file is looked at (wall time).
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// What identifies one version of the file: its length and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    pub len: u64,
    pub modified: SystemTime,
}

impl Signature {
    /// The file's signature now; `None` while it cannot be looked at (being replaced, removed).
    pub fn of(path: &Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        Some(Self { len: m.len(), modified: m.modified().ok()? })
    }
}

/// What one poll decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    /// Nothing to do: the file is the one loaded, cannot be looked at, or a load is running.
    Idle,
    /// The file changed since the last poll: wait for it to hold still.
    Settling,
    /// The file held still for a whole interval: read it.
    Load(Signature),
}

/// The debounce, apart from the clock and the file system so it can be tested on its own.
#[derive(Debug, Clone, Default)]
pub struct Debounce {
    /// The signature of the version last read (loaded or refused): not read again.
    pub read: Option<Signature>,
    /// The signature the previous poll saw, waiting to be seen again.
    pub seen: Option<Signature>,
}

impl Debounce {
    pub fn poll(&mut self, now: Option<Signature>, loading: bool) -> Poll {
        let Some(sig) = now else {
            self.seen = None;
            return Poll::Idle;
        };
        if loading || self.read == Some(sig) {
            self.seen = None;
            return Poll::Idle;
        }
        if self.seen != Some(sig) {
            self.seen = Some(sig);
            return Poll::Settling;
        }
        self.seen = None;
        Poll::Load(sig)
    }
}

/// A new island, read and prepared off the frame.
pub struct Loaded {
    pub world: IslandWorld,
    pub tree: LodTree,
    pub secs: f64,
}

/// What a load hands back.
enum Outcome {
    Loaded(Box<Loaded>),
    /// The reader's one-line error, with the file's path in front.
    Refused(String),
    /// The file changed while it was being read: read it again once it holds still.
    Changed,
}

/// The watched file and the load in flight.
#[derive(Resource)]
pub struct Watch {
    pub path: PathBuf,
    pub interval: Duration,
    pub debounce: Debounce,
    last_poll: Option<Duration>,
    job: Option<(Signature, Mutex<Receiver<Outcome>>)>,
}

impl Watch {
    /// Watch `path`, whose current version is the one on screen.
    pub fn new(path: PathBuf) -> Self {
        let read = Signature::of(&path);
        Self { path, interval: POLL_INTERVAL, debounce: Debounce { read, seen: None }, last_poll: None, job: None }
    }
}

/// The last reload, for the panel.
#[derive(Resource, Debug, Clone, Default)]
pub struct ReloadStatus {
    pub last: Option<ReloadEvent>,
    pub reloads: u32,
    pub refusals: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ReloadEvent {
    /// The log line's text after `world: `.
    Reloaded(String),
    Refused(String),
}

impl ReloadEvent {
    pub fn line(&self) -> String {
        match self {
            Self::Reloaded(s) => format!("world: {s}"),
            Self::Refused(e) => format!("world: reload refused: {e}"),
        }
    }
}

/// Watches `Watch::path` (inserted by whoever starts the app) and swaps in what it reads.
pub struct ReloadPlugin;

impl Plugin for ReloadPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.init_resource::<ReloadStatus>()
            .add_systems(
                Update,
                (poll_file, finish_load).chain().run_if(resource_exists::<Watch>).in_set(super::IslaSet::Input),
            )
            .add_systems(
                Update,
                after_world_shown.run_if(on_message::<super::server::WorldShown>).in_set(super::IslaSet::Render),
            );
    }
}

/// The new island is on screen: what was derived from the old one goes (the map, the probe's
/// pins), and the toggles are applied again to the new island's materials and fog.
fn after_world_shown(
    mut commands: Commands,
    mut toggles: ResMut<super::settings::DebugToggles>,
    probe: Option<ResMut<super::probe::ProbeState>>,
) {
    commands.remove_resource::<super::map::MapState>();
    if let Some(mut p) = probe {
        *p = default();
    }
    toggles.set_changed();
}

/// At most every `interval` of wall time: look at the file, and start a load once it holds still.
fn poll_file(time: Res<Time<Real>>, mut watch: ResMut<Watch>) {
    let now = time.elapsed();
    if watch.last_poll.is_some_and(|t| now < t + watch.interval) {
        return;
    }
    watch.last_poll = Some(now);
    let sig = Signature::of(&watch.path);
    let loading = watch.job.is_some();
    if let Poll::Load(sig) = watch.debounce.poll(sig, loading) {
        let path = watch.path.clone();
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("isla-reload".into())
            .spawn(move || {
                let _ = tx.send(load(&path, sig));
            })
            .expect("spawn the reload thread");
        watch.job = Some((sig, Mutex::new(rx)));
    }
}

/// Read, check and prepare the file; `sig` is the version the watcher decided to read.
fn load(path: &Path, sig: Signature) -> Outcome {
    let t = Instant::now();
    let bp = match crate::blueprint::read_file(path) {
        Ok(bp) => bp,
        Err(e) => {
            return if Signature::of(path) == Some(sig) {
                Outcome::Refused(format!("{}: {e}", path.display()))
            } else {
                Outcome::Changed
            };
        }
    };
    if Signature::of(path) != Some(sig) {
        return Outcome::Changed;
    }
    for w in &bp.warnings {
        warn!("{}: {} at byte {}: {}", path.display(), w.section, w.offset, w.message);
    }
    let source = Arc::new(WorldSource::new(Arc::new(bp)));
    let tree = LodTree::new(&source);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "blueprint".into());
    Outcome::Loaded(Box::new(Loaded { world: IslandWorld { source, name }, tree, secs: t.elapsed().as_secs_f64() }))
}

/// What the island holds, for the reload line: `1024², 4 m columns, 12 water bodies, …`.
pub fn describe(src: &WorldSource) -> String {
    let bp = &src.blueprint;
    let bodies = bp.water.as_ref().and_then(|w| w.bodies.as_ref()).map_or(0, |b| b.len());
    let rivers = bp.rivers.as_ref().map_or(0, |r| r.rivers.len());
    let roads = bp.roads.as_ref().map_or(0, |r| r.roads.len());
    let towns = bp.towns.as_ref().map_or(0, |t| t.len());
    format!(
        "{}², {} m columns, {bodies} water bodies, {rivers} rivers, {roads} roads, {towns} towns",
        bp.map_size, bp.params.metres_per_pixel
    )
}

/// Take a finished load: swap the island in, or log why not.
fn finish_load(world: &mut World) {
    let mut watch = world.resource_mut::<Watch>();
    let Some((sig, rx)) = watch.job.as_ref() else { return };
    let received = rx.lock().map_err(|_| TryRecvError::Disconnected).and_then(|rx| rx.try_recv());
    let outcome = match received {
        Ok(o) => o,
        Err(TryRecvError::Empty) => return,
        Err(TryRecvError::Disconnected) => Outcome::Refused(format!(
            "{}: internal failure: the reload thread ended without a result",
            watch.path.display()
        )),
    };
    let sig = *sig;
    watch.job = None;
    let path = watch.path.clone();
    let event = match outcome {
        Outcome::Changed => return,
        Outcome::Refused(e) => {
            watch.debounce.read = Some(sig);
            ReloadEvent::Refused(e)
        }
        Outcome::Loaded(l) => {
            watch.debounce.read = Some(sig);
            let what = describe(&l.world.source);
            super::server::replace_world(world, l.world, l.tree);
            ReloadEvent::Reloaded(format!("reloaded {} ({what}) in {:.2} s", path.display(), l.secs))
        }
    };
    match &event {
        ReloadEvent::Reloaded(_) => info!("{}", event.line()),
        ReloadEvent::Refused(_) => warn!("{}", event.line()),
    }
    let mut status = world.resource_mut::<ReloadStatus>();
    match &event {
        ReloadEvent::Reloaded(_) => status.reloads += 1,
        ReloadEvent::Refused(_) => status.refusals += 1,
    }
    status.last = Some(event);
}
