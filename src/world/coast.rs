//! Where the island meets the sea, for the camera presets: a pure rule over the world's columns,
//! so a test reaches it without Bevy.

use super::WorldSource;

/// A point on the coast and the way out to sea.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coast {
    /// World position (m) of the last dry column before the sea (Y = 0).
    pub point_m: [f32; 3],
    /// Horizontal unit vector from the island towards the sea.
    pub outward: [f32; 3],
}

/// March from the map's centre towards the east-south-east (the overview's side, lit by the
/// default sun) until the ground drops below the sea; try other bearings if that ray stays dry.
/// `None` when every bearing stays dry (or wet) to the map's edge.
pub fn find_coast(src: &WorldSource) -> Option<Coast> {
    let l = src.layout;
    let n = l.map_size as i64;
    let sea = src.sea_level_m();
    for bearing_deg in [120.0f32, 90.0, 150.0, 60.0, 180.0, 0.0, 210.0, 270.0, 300.0, 330.0, 30.0, 240.0] {
        let b = bearing_deg.to_radians();
        let dir = [b.sin(), 0.0, -b.cos()];
        let (cx, cz) = (n as f32 * 0.5, n as f32 * 0.5);
        let mut was_land = false;
        for step in 0..(n as usize) {
            let (px, pz) = ((cx + dir[0] * step as f32) as i64, (cz + dir[2] * step as f32) as i64);
            if px < 1 || pz < 1 || px >= n - 1 || pz >= n - 1 {
                break;
            }
            let land = src.surface_y_m(px, pz) > sea;
            if was_land && !land {
                let c = l.column_m;
                let point_m = [px as f32 * c - dir[0] * c, 0.0 - dir[1] * c, pz as f32 * c - dir[2] * c];
                return Some(Coast { point_m, outward: dir });
            }
            was_land |= land;
        }
    }
    None
}
