//! Ingest: a worker's session, the checks of the sample batches it sends and the spot checks of
//! its searches. A checked batch goes to `store`'s committer and the training thread's input.
//!
//! It may call `store`, `live` (through `Live`'s events: a batch stored, a worker heard from),
//! the training thread's input and the `error` and `text` modules; it names the metric it
//! records (`session::INGEST_SECONDS`). The service in `server` calls it.

pub(crate) mod research;
pub(crate) mod session;
pub(crate) mod validate;
