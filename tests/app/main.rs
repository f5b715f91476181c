//! The app's tests, one binary linking Bevy (feature `app`): the `isla` binary as a user runs it
//! (`app`) and Isla's own screenshot suites with their semantic checks (`screenshots`), sharing
//! the helpers in `common`.

mod app;
mod common;
mod far_field;
mod film;
mod reload;
mod renderers;
mod screenshots;
