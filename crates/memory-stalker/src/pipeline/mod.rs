//! The save pipeline: from a transcript to a memory on disk, and the background worker
//! that adds a model's summary to it. The hooks (`crate::hook`, which only speak Claude
//! Code's protocol), `save-memory --transcript` and the worker process all call it.

mod compaction;
mod job;
mod save;

pub use compaction::{UNKNOWN_TRIGGER, compaction_memory};
pub use job::{JOB_SUBCOMMAND, SummaryJob, run_detached};
pub use save::{
    FactsLeftOut, PastCut, RenderedMemory, SaveRequest, Saved, render_memory, save_memory,
    save_past_memory,
};
