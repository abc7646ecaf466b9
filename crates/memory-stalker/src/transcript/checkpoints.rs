//! The task lists earlier memories knew ([`super::ReadOptions::checkpoints`]), given when
//! the read starts or still being looked up beside it: the hook finds them in the
//! project's index (opened, and in a new project created, first) while its reader is
//! already at work, instead of before.

use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};

use super::TaskCheckpoint;

/// Task lists known at sizes of the transcript, from earlier memories: known now, or
/// sent by a lookup that runs beside the read.
#[derive(Debug, Clone, Default)]
pub struct Checkpoints(Arc<Mutex<State>>);

#[derive(Debug)]
enum State {
    Known(Vec<TaskCheckpoint>),
    Coming(Receiver<Vec<TaskCheckpoint>>),
}

impl Default for State {
    fn default() -> Self {
        State::Known(Vec::new())
    }
}

impl Checkpoints {
    /// Checkpoints known before the read starts.
    pub fn known(list: Vec<TaskCheckpoint>) -> Checkpoints {
        Checkpoints(Arc::new(Mutex::new(State::Known(list))))
    }

    /// Checkpoints a lookup will send on the returned sender; a sender dropped without
    /// sending (the lookup failed) counts as none.
    pub fn coming() -> (Checkpoints, Sender<Vec<TaskCheckpoint>>) {
        let (tx, rx) = std::sync::mpsc::channel();
        (Checkpoints(Arc::new(Mutex::new(State::Coming(rx)))), tx)
    }

    /// The checkpoints, once known: `None` while the lookup is still running, unless
    /// `wait`, which waits for it to end.
    pub(super) fn get(&self, wait: bool) -> Option<Vec<TaskCheckpoint>> {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let State::Coming(rx) = &*state {
            let got = if wait {
                rx.recv().unwrap_or_default()
            } else {
                match rx.try_recv() {
                    Ok(list) => list,
                    Err(TryRecvError::Empty) => return None,
                    Err(TryRecvError::Disconnected) => Vec::new(),
                }
            };
            *state = State::Known(got);
        }
        match &*state {
            State::Known(list) => Some(list.clone()),
            State::Coming(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(bytes: u64) -> TaskCheckpoint {
        TaskCheckpoint { bytes, todos: None }
    }

    #[test]
    fn known_checkpoints_are_there_at_once() {
        assert_eq!(
            Checkpoints::known(vec![at(7)]).get(false),
            Some(vec![at(7)])
        );
        assert_eq!(Checkpoints::default().get(false), Some(Vec::new()));
    }

    #[test]
    fn coming_checkpoints_are_there_once_sent_and_kept() {
        let (c, tx) = Checkpoints::coming();
        assert_eq!(c.get(false), None);
        tx.send(vec![at(3)]).unwrap();
        assert_eq!(c.get(false), Some(vec![at(3)]));
        // Received once, then kept (the sender may be gone).
        drop(tx);
        assert_eq!(c.clone().get(false), Some(vec![at(3)]));
    }

    #[test]
    fn waiting_takes_what_the_lookup_sends_and_a_failed_lookup_is_none() {
        let (c, tx) = Checkpoints::coming();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            tx.send(vec![at(9)]).unwrap();
        });
        assert_eq!(c.get(true), Some(vec![at(9)]));
        sender.join().unwrap();

        let (c, tx) = Checkpoints::coming();
        drop(tx);
        assert_eq!(c.get(false), Some(Vec::new()));
        let (c, tx) = Checkpoints::coming();
        let dropper = std::thread::spawn(move || drop(tx));
        assert_eq!(c.get(true), Some(Vec::new()));
        dropper.join().unwrap();
    }
}
