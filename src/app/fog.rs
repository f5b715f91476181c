//! Distance fog (SPEC §5): the horizon colour in air, a dense tint under water, switched as the
//! camera crosses the water surface of its column, and off with the fog toggle.

use super::IslandWorld;
use bevy::prelude::*;

pub struct FogPlugin;

impl Plugin for FogPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.add_systems(Update, underwater_fog.in_set(super::IslaSet::Apply));
    }
}

/// How much of the sun's light the air scatters toward the eye when looking at the sun (aerial
/// perspective): the fog's directional colour is the sun's own, at this weight, falling off as
/// `cos^AERIAL_EXPONENT` of the angle from the sun. The sky adds the same term at the horizon
/// (`sky.wgsl`), so the seam stays closed looking toward the sun too.
pub const AERIAL_STRENGTH: f32 = 0.04;
pub const AERIAL_EXPONENT: f32 = 12.0;

/// Distance fog in air: the sky's own horizon colour (so fogged ground meets the sky without a
/// seam: both go through the same tone mapping), brighter toward the sun, starting just past the
/// island.
pub fn air_fog(extent_m: f32) -> DistanceFog {
    let [r, g, b] = super::sky::horizon_colour();
    let sun = super::sky::SUN_RGB;
    DistanceFog {
        color: Color::linear_rgb(r, g, b),
        directional_light_color: Color::srgba(sun[0], sun[1], sun[2], AERIAL_STRENGTH),
        directional_light_exponent: AERIAL_EXPONENT,
        falloff: FogFalloff::Linear { start: extent_m * 0.9, end: extent_m * 4.0 },
    }
}

/// Fog under water: dense, tinted like shallow water, so a diver sees tens of metres.
pub fn water_fog() -> DistanceFog {
    let [r, g, b] = crate::mesh::water::SHALLOW_RGB;
    DistanceFog {
        color: Color::srgb(r * 0.45, g * 0.6, b * 0.7),
        directional_light_color: Color::NONE,
        directional_light_exponent: 30.0,
        falloff: FogFalloff::Exponential { density: 0.012 },
    }
}

/// Fog switched off (the debug toggle): pushed beyond any distance in the world, and no
/// inscattering (the sky reads the same uniform and drops its horizon glow with it).
pub fn no_fog() -> DistanceFog {
    DistanceFog {
        falloff: FogFalloff::Linear { start: 1.0e9, end: 2.0e9 },
        directional_light_color: Color::NONE,
        ..air_fog(1.0)
    }
}

/// Marker: the camera is below a water surface (the fog has switched to [`water_fog`]).
#[derive(Component, Debug)]
pub struct Submerged;

/// Switch the camera's fog between air and water as it crosses the water surface of its column.
fn underwater_fog(
    mut commands: Commands,
    world: Res<IslandWorld>,
    toggles: Res<super::settings::DebugToggles>,
    mut cams: Query<(Entity, &Transform, &mut DistanceFog, Has<Submerged>), With<Camera3d>>,
) {
    let fog_on = toggles.fog;
    let toggled = toggles.is_changed();
    let src = &world.source;
    let l = src.layout;
    for (e, t, mut fog, submerged) in &mut cams {
        let (px, py) = ((t.translation.x / l.column_m).round(), (t.translation.z / l.column_m).round());
        let n = l.map_size as f32;
        let below = if px >= 0.0 && py >= 0.0 && px < n && py < n {
            src.water_at(px as u32, py as u32, l.top_m()).is_some_and(|w| t.translation.y < w.water_surface_y_m)
        } else {
            // Beyond the map: the open sea at the ocean's level.
            src.ocean_level_m().is_some_and(|o| t.translation.y < o)
        };
        if below != submerged || toggled {
            *fog = match (fog_on, below) {
                (false, _) => no_fog(),
                (true, true) => water_fog(),
                (true, false) => air_fog(n * l.column_m),
            };
            if below {
                commands.entity(e).insert(Submerged);
            } else {
                commands.entity(e).remove::<Submerged>();
            }
        }
    }
}
