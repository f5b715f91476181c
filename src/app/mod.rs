//! The client half: Bevy plugins that draw what the world server built (SPEC §4–5).
//!
//! Only this module knows Bevy's renderer. It never reads the blueprint's bytes: it gets a
//! [`WorldSource`](crate::world::WorldSource) and turns chunk data and mesh buffers into entities.

// Bevy systems take their queries and resources as arguments; their types are long by nature.
#![allow(clippy::type_complexity, clippy::too_many_arguments)]

pub mod camera;
pub mod chunks;
pub mod debug;
pub mod far_field;
pub mod film;
pub mod flight;
pub mod fly;
pub mod fog;
pub mod input;
pub mod map;
pub mod panel;
pub mod probe;
pub mod reload;
pub mod scene;
pub mod server;
pub mod settings;
pub mod shot;
pub mod sky;
pub mod terrain;
pub mod water;

use crate::world::WorldSource;
use bevy::prelude::*;
use std::sync::Arc;

/// The loaded world, shared with build tasks.
#[derive(Resource, Clone)]
pub struct IslandWorld {
    pub source: Arc<WorldSource>,
    /// Name shown in the window title and logs.
    pub name: String,
}

/// The order data flows through a frame: keys and panels change the toggles and settings
/// (`Input`), plugins apply them to the scene (`Apply`), the world server selects, builds and
/// swaps nodes (`Server`), and the client turns what it built into meshes and gizmos (`Render`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IslaSet {
    Input,
    Apply,
    Server,
    Render,
}

/// Everything both the window and the headless path draw: nodes, sky, sun, fog, overlays.
pub struct IslaScenePlugin;

impl Plugin for IslaScenePlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(Update, (IslaSet::Input, IslaSet::Apply, IslaSet::Server, IslaSet::Render).chain())
            .add_plugins((
                debug::DebugTogglesPlugin,
                server::WorldServerPlugin,
                chunks::ChunkRenderPlugin,
                sky::SkyPlugin,
                scene::SunPlugin,
                fog::FogPlugin,
                film::PathDrawPlugin,
            ));
    }
}
