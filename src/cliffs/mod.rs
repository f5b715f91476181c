//! The cliff/noise generator (SPEC §6): noise expressions, cliff fields, edge crossings, cell
//! codes and orientations, the repair sweep, water rejection and raster map layers. Pure and
//! deterministic; it never touches Bevy.
