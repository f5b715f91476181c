//! Named camera presets: where a shot or the flight starts, computed from the world (coast found
//! by marching out from the island's centre, the crater from `PRMS`), so each preset shows what
//! its name promises on any blueprint.

use crate::world::WorldSource;
use bevy::prelude::*;

pub use crate::view::Preset as CameraPreset;

impl CameraPreset {
    /// The camera for this preset on this world.
    pub fn transform(self, src: &WorldSource) -> Transform {
        let (from, at) = self.pose(src);
        look(from, at)
    }

    /// Where the camera stands and the point it looks at, for this preset on this world.
    pub fn pose(self, src: &WorldSource) -> (Vec3, Vec3) {
        let layout = src.layout;
        let extent = layout.map_size as f32 * layout.column_m;
        let centre = Vec3::new(extent * 0.5, 0.0, extent * 0.5);
        match self {
            CameraPreset::Overview => {
                // Pitched about 19° down with a 55° field of view: the horizon and sky fill the top
                // of the frame, the whole island the rest.
                (centre + Vec3::new(0.62 * extent, 0.27 * extent, 0.42 * extent), centre)
            }
            CameraPreset::Coast => {
                let Some(c) = find_coast(src) else { return CameraPreset::Overview.pose(src) };
                let sea = src.sea_level_m();
                let eye = Vec3::new(c.point.x, sea + 45.0, c.point.z) + c.outward * 260.0;
                (eye, Vec3::new(c.point.x, sea + 10.0, c.point.z) - c.outward * 80.0)
            }
            CameraPreset::Crater => {
                let Some(([cx, cz], r)) = src.crater_m() else { return CameraPreset::Coast.pose(src) };
                let c = Vec3::new(cx, src.sea_level_m(), cz);
                // From the island's side of the crater, so the bay and the open sea beyond it show.
                let inward = Vec3::new(centre.x - c.x, 0.0, centre.z - c.z).normalize_or(Vec3::X);
                (c + inward * (1.6 * r) + Vec3::Y * (1.3 * r).max(80.0), c - inward * (0.2 * r))
            }
            CameraPreset::Underwater => {
                let Some(c) = find_coast(src) else { return CameraPreset::Overview.pose(src) };
                // Out from the shore until the water is at least 12 m deep, then 4 m below the surface.
                let top = layout.top_m();
                let mut at = c.point;
                let mut surface = src.sea_level_m();
                for step in 0..400 {
                    let p = c.point + c.outward * (step as f32 * layout.column_m);
                    let (px, py) = ((p.x / layout.column_m) as i64, (p.z / layout.column_m) as i64);
                    let n = layout.map_size as i64;
                    if px < 0 || py < 0 || px >= n || py >= n {
                        break;
                    }
                    at = p;
                    if let Some(w) = src.water_at(px as u32, py as u32, top) {
                        surface = w.water_surface_y_m;
                        if w.true_depth_m >= 12.0 {
                            break;
                        }
                    }
                }
                let eye = Vec3::new(at.x, surface - 4.0, at.z);
                (eye, eye - c.outward * 60.0 + Vec3::Y * 30.0)
            }
        }
    }
}

/// A camera at `from` looking at `at`. Looking (nearly) straight down, east (+X) is up in the
/// frame; otherwise the world's up is.
pub fn look(from: Vec3, at: Vec3) -> Transform {
    let dir = (at - from).normalize_or(Vec3::NEG_Y);
    let up = if dir.dot(Vec3::NEG_Y) > 0.99 { Vec3::X } else { Vec3::Y };
    Transform::from_translation(from).looking_at(at, up)
}

/// The coast [`crate::world::find_coast`] finds, in the camera's vector type.
struct Coast {
    point: Vec3,
    outward: Vec3,
}

fn find_coast(src: &WorldSource) -> Option<Coast> {
    crate::world::find_coast(src)
        .map(|c| Coast { point: Vec3::from_array(c.point_m), outward: Vec3::from_array(c.outward) })
}
