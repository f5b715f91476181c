//! Water rejection (SPEC §6): a cliff whose footprint touches a water tile is not placed.
//!
//! The footprint is the cliff's own cell, the 4 × 4 tiles `[4·cx, 4·cx + 4) × [4·cy, 4·cy + 4)`.
//! The reference tests each orientation's collision box instead; this project has no cliff
//! entities, and the cell is the area the map paints, so a painted cliff never covers water.
//! The check only reads the mask, so it cannot depend on chunk order.

use super::lattice::CELL_TILES;
use crate::blueprint::Blueprint;
use crate::world::{WaterSource, WorldLayout, water_column};

/// Which tiles are water, over a rectangle of tiles; tiles outside it read `outside_is_water`.
#[derive(Debug, Clone, PartialEq)]
pub struct WaterMask {
    pub x0: i64,
    pub y0: i64,
    pub w: u32,
    pub h: u32,
    /// Row-major (`(x − x0) + w·(y − y0)`), true where wet.
    pub wet: Vec<bool>,
    pub outside_is_water: bool,
}

impl WaterMask {
    /// A mask from any predicate over `[x0, x0 + w) × [y0, y0 + h)`.
    pub fn from_fn(x0: i64, y0: i64, w: u32, h: u32, outside_is_water: bool, wet: impl Fn(i64, i64) -> bool) -> Self {
        let mut v = Vec::with_capacity(w as usize * h as usize);
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                v.push(wet(x0 + x, y0 + y));
            }
        }
        Self { x0, y0, w, h, wet: v, outside_is_water }
    }

    /// No water anywhere: nothing is rejected (e.g. a noise preset drawn without an island).
    pub fn none() -> Self {
        Self { x0: 0, y0: 0, w: 0, h: 0, wet: Vec::new(), outside_is_water: false }
    }

    /// The blueprint's water over the whole map; off the map is the open ocean.
    pub fn from_blueprint(bp: &Blueprint) -> Self {
        Self::from_blueprint_region(bp, 0, 0, bp.map_size, bp.map_size)
    }

    /// The blueprint's water over `[x0, x0 + w) × [y0, y0 + h)`: a column is wet when the world's
    /// water rules give it water (`WBID` non-zero, or the shoreline seam); a blueprint without
    /// water sections is wet below sea level. Tiles off the map are wet (the open ocean).
    pub fn from_blueprint_region(bp: &Blueprint, x0: i64, y0: i64, w: u32, h: u32) -> Self {
        let n = bp.map_size as i64;
        let src = WaterSource::new(bp);
        let top_m = WorldLayout::for_blueprint(bp).top_m();
        Self::from_fn(x0, y0, w, h, true, |x, y| {
            if x < 0 || y < 0 || x >= n || y >= n {
                return true;
            }
            let (x, y) = (x as u32, y as u32);
            if bp.water.is_some() {
                water_column(bp, &src, x, y, top_m).is_some()
            } else {
                bp.height_raw(x, y) < bp.params.sea_level_raw
            }
        })
    }

    #[inline]
    pub fn is_water(&self, x: i64, y: i64) -> bool {
        let (dx, dy) = (x - self.x0, y - self.y0);
        if dx < 0 || dy < 0 || dx >= self.w as i64 || dy >= self.h as i64 {
            return self.outside_is_water;
        }
        self.wet[dx as usize + self.w as usize * dy as usize]
    }

    /// Whether the footprint of the cliff in global cell `(cell_x, cell_y)` touches water.
    pub fn footprint_touches_water(&self, cell_x: i64, cell_y: i64) -> bool {
        let (x0, y0) = (cell_x * CELL_TILES, cell_y * CELL_TILES);
        (0..CELL_TILES).any(|dy| (0..CELL_TILES).any(|dx| self.is_water(x0 + dx, y0 + dy)))
    }
}
