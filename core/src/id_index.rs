//! A map from ids to indices that stores each id once: the table holds only `u32` indices and
//! looks ids up in the owning vector, so a million-op graph does not keep a second copy of every
//! op and tensor id.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;

/// Index of ids owned elsewhere (`ids(i)` gives the id of index `i`).
#[derive(Clone, Debug, Default)]
pub struct IdIndex {
    table: HashTable<u32>,
    hasher: RandomState,
}

impl IdIndex {
    pub fn with_capacity(n: usize) -> Self {
        IdIndex {
            table: HashTable::with_capacity(n),
            hasher: RandomState::new(),
        }
    }

    /// Adds `ix` under `id` unless the id is already there; returns the existing index then.
    pub fn insert<'a>(&mut self, id: &str, ix: u32, ids: impl Fn(u32) -> &'a str) -> Option<u32> {
        let hash = self.hasher.hash_one(id);
        if let Some(&found) = self.table.find(hash, |&j| ids(j) == id) {
            return Some(found);
        }
        let hasher = &self.hasher;
        self.table
            .insert_unique(hash, ix, |&j| hasher.hash_one(ids(j)));
        None
    }

    /// The index of `id`.
    pub fn get<'a>(&self, id: &str, ids: impl Fn(u32) -> &'a str) -> Option<u32> {
        self.table
            .find(self.hasher.hash_one(id), |&j| ids(j) == id)
            .copied()
    }
}
