//! The one in-process lock map: one async mutex per pane of a server, shared by every [`Server`] handle in
//! the process (two handles on one socket lock the same pane). Entries go away with their last holder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::pane::PaneId;

type Key = (PathBuf, PaneId);

/// The mutex of `pane` on the server listening on `socket`.
pub(crate) fn pane_mutex(socket: &Path, pane: &PaneId) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<Key, Weak<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let mut locks = LOCKS.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = (socket.to_owned(), pane.clone());
    if let Some(mutex) = locks.get(&key).and_then(Weak::upgrade) {
        return mutex;
    }
    // Forget panes nobody holds or waits for, so the map stays as small as the set of panes in use.
    locks.retain(|_, mutex| mutex.strong_count() > 0);
    let mutex = Arc::new(tokio::sync::Mutex::new(()));
    locks.insert(key, Arc::downgrade(&mutex));
    mutex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mutex_per_pane_and_socket_while_held() {
        let (a, b) = (PaneId::new("%1"), PaneId::new("%2"));
        let first = pane_mutex(Path::new("/s"), &a);
        assert!(Arc::ptr_eq(&first, &pane_mutex(Path::new("/s"), &a)));
        assert!(!Arc::ptr_eq(&first, &pane_mutex(Path::new("/s"), &b)));
        assert!(!Arc::ptr_eq(&first, &pane_mutex(Path::new("/other"), &a)));
        let weak = Arc::downgrade(&first);
        drop(first);
        let _ = pane_mutex(Path::new("/s"), &b);
        assert!(weak.upgrade().is_none());
    }
}
