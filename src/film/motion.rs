//! The camera's motion along a path (see the module above): the keys' tangents, each leg's
//! curve walked at an even pace, the rotations slerped, the sun between keys.

use super::{CLEARANCE_M, Ease, Key, KeySun, LOOK_AHEAD_M, PathFile};
use crate::view::{Sun, View};

type V3 = [f32; 3];

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(a: V3, s: f32) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn len(a: V3) -> f32 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// A rotation as a unit quaternion `[x, y, z, w]`.
type Quat = [f32; 4];

/// The camera's rotation looking along `forward` (the camera looks down −Z, up +Y, no roll):
/// yaw about Y, then pitch about X.
pub fn look_rotation(forward: V3) -> Quat {
    let yaw = (-forward[0]).atan2(-forward[2]);
    let pitch = forward[1].clamp(-1.0, 1.0).asin();
    let (sy, cy) = (0.5 * yaw).sin_cos();
    let (sp, cp) = (0.5 * pitch).sin_cos();
    // q = q_yaw · q_pitch.
    [cy * sp, sy * cp, -sy * sp, cy * cp]
}

/// `q` applied to `v`.
pub fn rotate(q: Quat, v: V3) -> V3 {
    let u = [q[0], q[1], q[2]];
    let cross = |a: V3, b: V3| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let t = scale(cross(u, v), 2.0);
    add(add(v, scale(t, q[3])), cross(u, t))
}

/// Spherical interpolation from `a` to `b` by `f`, the short way round.
pub fn slerp(a: Quat, b: Quat, f: f32) -> Quat {
    let mut dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    let b = if dot < 0.0 {
        dot = -dot;
        [-b[0], -b[1], -b[2], -b[3]]
    } else {
        b
    };
    let (wa, wb) = if dot > 0.9995 {
        (1.0 - f, f)
    } else {
        let theta = dot.clamp(-1.0, 1.0).acos();
        let s = theta.sin();
        (((1.0 - f) * theta).sin() / s, (f * theta).sin() / s)
    };
    let q = [wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3]];
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
}

/// One leg: a cubic Hermite curve from key `i` to `i + 1` and its arc-length table.
#[derive(Debug, Clone)]
struct Leg {
    start: f32,
    end: f32,
    p0: V3,
    p1: V3,
    /// The end tangents in the curve's parameter (velocity × duration).
    t0: V3,
    t1: V3,
    /// The speeds (m/s) at its ends.
    v0: f32,
    v1: f32,
    length: f32,
    /// `(arc length, point)` at evenly spaced parameters: the curve as a fine polyline, walked at
    /// exactly the pace asked (a parameter interpolated between samples would not be, where the
    /// curve leaves a stop).
    table: Vec<(f32, V3)>,
    /// Smoothstep the turn's progress when the leg does not move (a turn in place).
    in_out: bool,
}

const TABLE_STEPS: usize = 512;

impl Leg {
    fn point(&self, u: f32) -> V3 {
        let (u2, u3) = (u * u, u * u * u);
        let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
        let h10 = u3 - 2.0 * u2 + u;
        let h01 = -2.0 * u3 + 3.0 * u2;
        let h11 = u3 - u2;
        add(add(scale(self.p0, h00), scale(self.t0, h10)), add(scale(self.p1, h01), scale(self.t1, h11)))
    }

    /// The distance covered `tau` seconds into the leg: speed quadratic in time from `v0` to `v1`,
    /// integrating to the leg's length.
    fn covered(&self, tau: f32) -> f32 {
        let t = self.end - self.start;
        let (v0, v1, l) = (self.v0, self.v1, self.length);
        let c = 6.0 * (l - 0.5 * (v0 + v1) * t) / (t * t * t);
        (v0 * tau + (v1 - v0) * tau * tau / (2.0 * t) + c * (t * tau * tau / 2.0 - tau * tau * tau / 3.0)).clamp(0.0, l)
    }

    /// The point at arc length `s` along the curve.
    fn point_at(&self, s: f32) -> V3 {
        let i = self.table.partition_point(|&(d, _)| d < s).clamp(1, self.table.len() - 1);
        let ((d0, p0), (d1, p1)) = (self.table[i - 1], self.table[i]);
        if d1 > d0 { add(p0, scale(sub(p1, p0), (s - d0) / (d1 - d0))) } else { p1 }
    }
}

/// Where the camera is and looks at time `t`, and the sun.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    pub from: V3,
    pub forward: V3,
    pub sun: Sun,
}

/// A path ready to sample.
#[derive(Debug, Clone)]
pub struct Film {
    pub file: PathFile,
    legs: Vec<Leg>,
    rotations: Vec<Quat>,
    /// Each key's sun, inheritance resolved.
    suns: Vec<KeySun>,
}

impl Film {
    pub fn new(file: PathFile) -> Self {
        let keys = &file.keys;
        let n = keys.len();
        // A key is a stop (zero velocity) at the ends, with a hold, or beside an in-out leg.
        let stop = |i: usize| {
            i == 0
                || i == n - 1
                || keys[i].depart > keys[i].arrive
                || keys[i].ease == Ease::InOut
                || keys[i + 1].ease == Ease::InOut
        };
        let velocity: Vec<V3> = (0..n)
            .map(|i| {
                if stop(i) {
                    return [0.0; 3];
                }
                let (a, b) = (&keys[i - 1], &keys[i + 1]);
                let m = scale(sub(b.from, a.from), 1.0 / (b.arrive - a.depart));
                // No faster than either leg's chord over its duration: no cusp or loop.
                let chord = |p: &Key, q: &Key| len(sub(q.from, p.from)) / (q.arrive - p.depart);
                let cap = chord(a, &keys[i]).min(chord(&keys[i], b));
                let l = len(m);
                if l > cap && l > 0.0 { scale(m, cap / l) } else { m }
            })
            .collect();
        let legs = (0..n - 1)
            .map(|i| {
                let (a, b) = (&keys[i], &keys[i + 1]);
                let d = b.arrive - a.depart;
                let mut leg = Leg {
                    start: a.depart,
                    end: b.arrive,
                    p0: a.from,
                    p1: b.from,
                    t0: scale(velocity[i], d),
                    t1: scale(velocity[i + 1], d),
                    v0: len(velocity[i]),
                    v1: len(velocity[i + 1]),
                    length: 0.0,
                    table: Vec::with_capacity(TABLE_STEPS + 1),
                    in_out: b.ease == Ease::InOut,
                };
                let mut s = 0.0;
                let mut prev = leg.p0;
                for k in 0..=TABLE_STEPS {
                    let p = leg.point(k as f32 / TABLE_STEPS as f32);
                    s += len(sub(p, prev));
                    prev = p;
                    leg.table.push((s, p));
                }
                leg.length = s;
                leg
            })
            .collect();
        let rotations = keys.iter().map(|k| look_rotation(k.forward)).collect();
        let mut suns = Vec::with_capacity(n);
        for k in keys {
            let s = match k.sun {
                KeySun::Inherit => suns.last().copied().unwrap_or(KeySun::Angles(Sun::default())),
                s => s,
            };
            suns.push(s);
        }
        Film { file, legs, rotations, suns }
    }

    /// The pose at `t` seconds.
    pub fn pose(&self, t: f32) -> Pose {
        let keys = &self.file.keys;
        let at_key = |i: usize| Pose { from: keys[i].from, forward: keys[i].forward, sun: self.sun_of(i, i, 0.0) };
        if t <= keys[0].depart {
            return at_key(0);
        }
        for (i, leg) in self.legs.iter().enumerate() {
            if t < leg.start {
                return at_key(i);
            }
            if t < leg.end {
                let tau = t - leg.start;
                let dur = leg.end - leg.start;
                let s = leg.covered(tau);
                let from = leg.point_at(s);
                let f = if leg.length > 1e-3 {
                    s / leg.length
                } else {
                    let x = tau / dur;
                    if leg.in_out { x * x * (3.0 - 2.0 * x) } else { x }
                };
                let q = slerp(self.rotations[i], self.rotations[i + 1], f);
                return Pose { from, forward: rotate(q, [0.0, 0.0, -1.0]), sun: self.sun_of(i, i + 1, f) };
            }
        }
        at_key(keys.len() - 1)
    }

    fn sun_of(&self, a: usize, b: usize, f: f32) -> Sun {
        let angles = |s: KeySun| match s {
            KeySun::Angles(s) => s,
            KeySun::Hour(h) => Sun::at_hour(h),
            KeySun::Inherit => Sun::default(),
        };
        match (self.suns[a], self.suns[b]) {
            (KeySun::Hour(h0), KeySun::Hour(h1)) => Sun::at_hour(h0 + (h1 - h0) * f),
            (x, y) => {
                let (p, q) = (angles(x), angles(y));
                let turn = (q.azimuth_deg - p.azimuth_deg + 540.0).rem_euclid(360.0) - 180.0;
                Sun {
                    elevation_deg: (p.elevation_deg + (q.elevation_deg - p.elevation_deg) * f).clamp(0.0, 90.0),
                    azimuth_deg: (p.azimuth_deg + turn * f).rem_euclid(360.0),
                }
            }
        }
    }

    /// Frame `i`'s time (s).
    pub fn time_of(&self, frame: u64) -> f32 {
        (frame as f64 / self.file.fps as f64) as f32
    }

    /// Frame `i`'s view: the pose at its time, lifted over the drawn surface where it would dip
    /// under it between keys (`ground(x, z)`: the surface's height there, m; `None` for no lift),
    /// with the film's switches. Also how far it was lifted (m, 0 for none).
    pub fn view(&self, frame: u64, ground: Option<&dyn Fn(f32, f32) -> f32>) -> (View, f32) {
        let t = self.time_of(frame);
        let mut p = self.pose(t);
        let mut lifted = 0.0;
        if let Some(g) = ground {
            let keys = &self.file.keys;
            // The clearance the keys around `t` keep themselves (a key under the water or low over
            // a beach is where the user put it), at most CLEARANCE_M.
            let next = keys.iter().position(|k| k.arrive > t).unwrap_or(keys.len() - 1);
            let prev = next.saturating_sub(1);
            let clear = |k: &Key| k.from[1] - g(k.from[0], k.from[2]);
            let want = clear(&keys[prev]).min(clear(&keys[next])).clamp(0.0, CLEARANCE_M);
            let floor = g(p.from[0], p.from[2]) + want;
            if p.from[1] < floor {
                lifted = floor - p.from[1];
                p.from[1] = floor;
            }
        }
        let at = add(p.from, scale(p.forward, LOOK_AHEAD_M));
        let view = View { from: p.from, at, sun: p.sun, switches: self.file.switches, lod: self.file.lod };
        (view, lifted)
    }
}

/// The camera's positions along the whole film every `step_s` seconds (for drawing it).
pub fn polyline(film: &Film, step_s: f32) -> Vec<[f32; 3]> {
    let n = (film.file.duration_s() / step_s).ceil() as usize;
    (0..=n).map(|i| film.pose((i as f32 * step_s).min(film.file.duration_s())).from).collect()
}
