//! Reload on change (SPEC §6 "Reload"), without a window: the watcher, the loader and the server
//! as plain systems in a headless app, on a clock that advances one poll interval per update.

use crate::common::repo;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use isla::app::IslandWorld;
use isla::app::reload::{Debounce, POLL_INTERVAL, Poll, ReloadEvent, ReloadPlugin, ReloadStatus, Signature, Watch};
use isla::app::server::{Loading, LodNode, NodeIndex, Retiring, Selection, Viewer, WorldServerPlugin};
use isla::blueprint::testing::cone_island;
use isla::world::WorldSource;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

fn app_watching(path: &Path) -> App {
    let bp = isla::blueprint::read_file(path).unwrap();
    let src = Arc::new(WorldSource::new(Arc::new(bp)));
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins((WorldServerPlugin, ReloadPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(POLL_INTERVAL))
        .insert_resource(IslandWorld { source: src.clone(), name: "watched".into() })
        .insert_resource(Watch::new(path.to_path_buf()));
    let extent = src.layout.map_size as f32 * src.layout.column_m;
    app.world_mut().spawn((Viewer, GlobalTransform::from_translation(Vec3::new(extent * 0.5, 400.0, extent * 0.5))));
    app
}

/// Update until `done`, checking after every frame that the screen never mixes two islands:
/// while an old island retires, no node of the new one is visible. Returns the frames in which
/// both islands had nodes.
fn run_until(app: &mut App, what: &str, done: impl Fn(&App) -> bool) -> u32 {
    let mut both = 0;
    for _ in 0..20_000 {
        app.update();
        let w = app.world();
        let new_nodes = &w.resource::<NodeIndex>().0;
        if !w.resource::<Retiring>().0.is_empty() && !new_nodes.is_empty() {
            both += 1;
            for &e in new_nodes.values() {
                assert_eq!(
                    w.get::<Visibility>(e),
                    Some(&Visibility::Hidden),
                    "a new node is shown beside the old island"
                );
            }
        }
        if done(app) {
            return both;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("{what}: not reached");
}

fn status(app: &App) -> ReloadStatus {
    app.world().resource::<ReloadStatus>().clone()
}

fn map_size(app: &App) -> u32 {
    app.world().resource::<IslandWorld>().source.layout.map_size
}

fn settled(app: &App) -> bool {
    let w = app.world();
    w.resource::<Loading>().finished && w.resource::<Retiring>().0.is_empty()
}

#[test]
fn reload_swaps_in_valid_files_keeps_the_island_on_bad_ones_and_waits_out_in_place_writes() {
    let dir = crate::common::out_dir().join("reload");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("watched.dat");
    std::fs::write(&path, isla::blueprint::to_bytes(&cone_island(128)).unwrap()).unwrap();
    let mut app = app_watching(&path);
    run_until(&mut app, "first view", settled);
    assert_eq!(map_size(&app), 128);

    // A valid island written over it in place (truncate and write, the same file). It is built
    // over many frames, so `run_until` sees the old island retiring meanwhile.
    let small = std::fs::read(repo("blueprints/small.dat")).unwrap();
    std::fs::write(&path, &small).unwrap();
    let both = run_until(&mut app, "the reload of a valid file", |a| status(a).reloads == 1 && settled(a));
    assert!(both > 0, "the new island was built within one frame: the retiring was not seen");
    assert_eq!(map_size(&app), 256, "the new island is the one in the world");
    let line = status(&app).last.unwrap().line();
    assert!(line.starts_with("world: reloaded ") && line.contains("(256², 16 m columns"), "{line}");
    let w = app.world_mut();
    let nodes = w.query::<&LodNode>().iter(w).count();
    assert_eq!(nodes, w.resource::<NodeIndex>().0.len(), "every node of the old island is gone");
    let displayed = w.resource::<Selection>().displayed.clone();
    let index = &w.resource::<NodeIndex>().0;
    assert!(!displayed.is_empty());
    for id in &displayed {
        assert_eq!(w.get::<Visibility>(index[id]), Some(&Visibility::Inherited), "{id:?} is not shown");
    }

    // A malformed file: refused with the reader's one-line error; the island stays.
    let before = app.world().resource::<IslandWorld>().source.clone();
    std::fs::write(&path, &small[..small.len() / 3]).unwrap();
    run_until(&mut app, "the refusal of a cut file", |a| status(a).refusals == 1);
    let last = status(&app).last.unwrap();
    let ReloadEvent::Refused(e) = &last else { panic!("{last:?}") };
    assert!(e.starts_with(&path.display().to_string()) && !e.contains('\n'), "{e}");
    assert!(last.line().starts_with("world: reload refused: "), "{}", last.line());
    for _ in 0..10 {
        app.update();
    }
    assert!(Arc::ptr_eq(&before, &app.world().resource::<IslandWorld>().source), "a bad file replaced the island");
    assert_eq!(status(&app).refusals, 1, "the same bad file is read once");

    // Written in place in three pieces, one poll apart, with time between them for a read to
    // finish: never read until it holds still.
    let next = isla::blueprint::to_bytes(&cone_island(96)).unwrap();
    let mut f = std::fs::File::create(&path).unwrap();
    for piece in next.chunks(next.len() / 3 + 1) {
        f.write_all(piece).unwrap();
        f.flush().unwrap();
        app.update();
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(f);
    run_until(&mut app, "the reload of the file written in pieces", |a| status(a).reloads == 2 && settled(a));
    assert_eq!(status(&app).refusals, 1, "a half-written file was read: {:?}", status(&app).last);
    assert_eq!(map_size(&app), 96);
}

#[test]
fn the_debounce_reads_a_version_only_once_it_has_held_still_for_a_poll() {
    let sig = |len: u64| Signature { len, modified: SystemTime::UNIX_EPOCH + Duration::from_secs(len) };
    let mut d = Debounce { read: Some(sig(1)), seen: None };
    assert_eq!(d.poll(Some(sig(1)), false), Poll::Idle, "the loaded version");
    assert_eq!(d.poll(Some(sig(2)), false), Poll::Settling);
    assert_eq!(d.poll(Some(sig(3)), false), Poll::Settling, "still growing");
    assert_eq!(d.poll(None, false), Poll::Idle, "gone for a moment (a rename)");
    assert_eq!(d.poll(Some(sig(3)), false), Poll::Settling, "back: held still for no poll yet");
    assert_eq!(d.poll(Some(sig(3)), true), Poll::Idle, "a load is running");
    assert_eq!(d.poll(Some(sig(3)), false), Poll::Settling);
    assert_eq!(d.poll(Some(sig(3)), false), Poll::Load(sig(3)));
    d.read = Some(sig(3));
    assert_eq!(d.poll(Some(sig(3)), false), Poll::Idle, "read once");
}
