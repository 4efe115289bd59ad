//! When and what to explore: saves close together are explored together (a debounce), the
//! saved documents first; a function is sent to generation only when no job not done yet
//! explores it for the same code and document version; a job's functions stop counting as on
//! their way once it is done (a job dropped half-way leaves the rest to the next save). Pure
//! state over keys, fingerprints and versions: no database, no threads, no clock of its own.

use rustc_hash::{FxHashMap, FxHashSet};
use std::time::{Duration, Instant};
use tower_lsp_server::ls_types::Uri;

/// Saves within this interval are explored together.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// A function a job not done yet will explore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Queued {
    job: u64,
    fingerprint: u64,
    version: i32,
}

/// A function that needs exploring, as the owner found it: its target, its outcome key and
/// its fingerprint.
pub struct Wanted<T> {
    pub target: T,
    pub key: String,
    pub fingerprint: u64,
}

/// One job for the generation thread: its number and its functions with their fingerprints.
#[derive(Debug, PartialEq)]
pub struct Planned<T> {
    pub id: u64,
    pub targets: Vec<(T, u64)>,
}

#[derive(Default)]
pub struct Scheduler {
    pending_saves: Vec<Uri>,
    deadline: Option<Instant>,
    next_job: u64,
    running: FxHashSet<u64>,
    /// Functions a job not done yet will explore, by outcome key: scheduling skips them, so
    /// that a save and a configuration change close together do not explore the same
    /// function twice.
    queued: FxHashMap<String, Queued>,
}

impl Scheduler {
    /// A document was saved at `now`: it is explored once no other save comes for `DEBOUNCE`.
    pub fn saved(&mut self, uri: Uri, now: Instant) {
        if !self.pending_saves.contains(&uri) {
            self.pending_saves.push(uri);
        }
        self.deadline = Some(now + DEBOUNCE);
    }

    /// When the saves waiting are due, if any are.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the saves waiting are due at `now`.
    pub fn due(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|deadline| now >= deadline)
    }

    /// The documents to explore for the saves waiting: the saved ones in the order they were
    /// saved, then every other open document (its functions' fingerprints include the code
    /// they call, which the save may have changed). Empty when nothing was saved.
    pub fn take_saves<'a>(&mut self, open: impl IntoIterator<Item = &'a Uri>) -> Vec<Uri> {
        self.deadline = None;
        let saved = std::mem::take(&mut self.pending_saves);
        if saved.is_empty() {
            return saved;
        }
        let mut uris = saved.clone();
        uris.extend(open.into_iter().filter(|u| !saved.contains(u)).cloned());
        uris
    }

    /// The job for one document at `version`: the functions `wanted` (those without a current
    /// outcome, or all of them when `force`) that no job not done yet explores for the same
    /// fingerprint and version. None when there is nothing to send.
    pub fn plan<T>(
        &mut self,
        version: i32,
        wanted: Vec<Wanted<T>>,
        force: bool,
    ) -> Option<Planned<T>> {
        let id = self.next_job + 1;
        let mut targets = vec![];
        for w in wanted {
            let on_its_way = self
                .queued
                .get(&w.key)
                .is_some_and(|q| (q.fingerprint, q.version) == (w.fingerprint, version));
            if on_its_way && !force {
                continue;
            }
            self.queued.insert(
                w.key,
                Queued {
                    job: id,
                    fingerprint: w.fingerprint,
                    version,
                },
            );
            targets.push((w.target, w.fingerprint));
        }
        if targets.is_empty() {
            return None;
        }
        self.next_job = id;
        self.running.insert(id);
        Some(Planned { id, targets })
    }

    /// The outcome of the function `key` arrived.
    pub fn explored(&mut self, key: &str) {
        self.queued.remove(key);
    }

    /// Job `job` is done (or dropped): what it did not explore is no longer on its way.
    /// Returns whether no job is running any more.
    pub fn job_done(&mut self, job: u64) -> bool {
        self.running.remove(&job);
        self.queued.retain(|_, q| q.job != job);
        self.running.is_empty()
    }

    /// Whether no job is running.
    pub fn idle(&self) -> bool {
        self.running.is_empty()
    }

    /// The guidance declarations changed: jobs already queued explore with the ones they
    /// started with, so nothing counts as on its way any more.
    pub fn forget_queued(&mut self) {
        self.queued.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(name: &str) -> Uri {
        format!("file:///p/{name}.py").parse().expect("a file URI")
    }

    fn wanted(names: &[(&str, u64)]) -> Vec<Wanted<String>> {
        names
            .iter()
            .map(|(n, fingerprint)| Wanted {
                target: (*n).to_owned(),
                key: format!("k|{n}"),
                fingerprint: *fingerprint,
            })
            .collect()
    }

    fn names(planned: &Option<Planned<String>>) -> Vec<&str> {
        planned
            .iter()
            .flat_map(|p| p.targets.iter().map(|(t, _)| t.as_str()))
            .collect()
    }

    #[test]
    fn saves_close_together_are_explored_together_saved_documents_first() {
        let mut s = Scheduler::default();
        let t0 = Instant::now();
        s.saved(uri("b"), t0);
        s.saved(uri("a"), t0 + Duration::from_millis(100));
        s.saved(uri("b"), t0 + Duration::from_millis(120));
        assert!(
            !s.due(t0 + Duration::from_millis(200)),
            "the last save moved it"
        );
        assert!(s.due(t0 + Duration::from_millis(270)));
        let open = [uri("c"), uri("a"), uri("b")];
        assert_eq!(s.take_saves(&open), [uri("b"), uri("a"), uri("c")]);
        assert_eq!(s.deadline(), None);
        assert!(s.take_saves(&open).is_empty(), "nothing saved since");
    }

    #[test]
    fn a_function_on_its_way_is_not_sent_again_for_the_same_code() {
        let mut s = Scheduler::default();
        let first = s.plan(1, wanted(&[("f", 10), ("g", 20)]), false);
        assert_eq!(first.as_ref().map(|p| p.id), Some(1));
        assert_eq!(names(&first), ["f", "g"]);
        // A configuration change right after: same code, same version: nothing new.
        assert_eq!(s.plan(1, wanted(&[("f", 10), ("g", 20)]), false), None);
        // `g` changed: only it goes; at a new version of the document, `f` goes again.
        let second = s.plan(1, wanted(&[("f", 10), ("g", 21)]), false);
        assert_eq!(second.as_ref().map(|p| p.id), Some(2));
        assert_eq!(names(&second), ["g"]);
        assert_eq!(names(&s.plan(2, wanted(&[("f", 10)]), false)), ["f"]);
        // `lacuna.rerun` sends it whatever is on its way.
        assert_eq!(names(&s.plan(2, wanted(&[("f", 10)]), true)), ["f"]);
    }

    #[test]
    fn what_a_finished_job_did_not_explore_can_be_sent_again() {
        let mut s = Scheduler::default();
        let job = s
            .plan(1, wanted(&[("f", 1), ("g", 2)]), false)
            .expect("a job");
        s.explored("k|f");
        assert!(!s.job_done(job.id + 1), "an unknown job changes nothing");
        // The job stopped after `f` (the document changed): `g` is no longer on its way.
        assert!(s.job_done(job.id), "no job is running any more");
        assert_eq!(
            names(&s.plan(1, wanted(&[("f", 1), ("g", 2)]), false)),
            ["f", "g"]
        );
    }

    #[test]
    fn idle_only_once_every_job_is_done() {
        let mut s = Scheduler::default();
        let a = s.plan(1, wanted(&[("f", 1)]), false).expect("a job");
        let b = s.plan(1, wanted(&[("g", 1)]), false).expect("a job");
        assert!(!s.job_done(a.id));
        assert!(s.job_done(b.id));
    }

    #[test]
    fn new_guidance_declarations_send_again_what_is_on_its_way() {
        let mut s = Scheduler::default();
        s.plan(1, wanted(&[("f", 1)]), false).expect("a job");
        s.forget_queued();
        assert_eq!(names(&s.plan(1, wanted(&[("f", 1)]), false)), ["f"]);
    }
}
