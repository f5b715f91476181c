//! Named camera presets: where a shot or the flight starts.

use crate::world::WorldLayout;
use bevy::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum CameraPreset {
    /// High above the east-south-east, looking at the whole island, sun from the right.
    #[default]
    Overview,
}

impl CameraPreset {
    /// Camera transform for this preset on a world of the given layout.
    pub fn transform(self, layout: &WorldLayout) -> Transform {
        let extent = layout.map_size as f32 * layout.column_m;
        let centre = Vec3::new(extent * 0.5, 0.0, extent * 0.5);
        match self {
            CameraPreset::Overview => {
                // Pitched about 19° down with a 55° field of view: the horizon and sky fill the top
                // of the frame, the whole island the rest.
                let eye = centre + Vec3::new(0.85 * extent, 0.35 * extent, 0.55 * extent);
                Transform::from_translation(eye).looking_at(centre, Vec3::Y)
            }
        }
    }
}
