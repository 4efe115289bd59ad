//! One handler per LSP request: each answers from the published snapshot or asks the owner
//! thread through an [`Event`](crate::lsp::event::Event) and waits for its reply.

pub(super) mod code_action;
pub(super) mod code_action_resolve;
pub(super) mod diagnostic;
pub(super) mod execute_command;
pub(super) mod hover;
pub(super) mod initialize;
pub(super) mod shutdown;
