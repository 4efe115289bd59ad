//! One handler per LSP notification: each becomes an [`Event`](crate::lsp::event::Event) for the
//! owner thread, which applies them in order.

pub(super) mod did_change;
pub(super) mod did_change_configuration;
pub(super) mod did_change_watched_files;
pub(super) mod did_close;
pub(super) mod did_open;
pub(super) mod did_save;
pub(super) mod initialized;
