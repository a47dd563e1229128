//! The slab: records in reused slots, named by generation-checked keys.

/// A record's slot and the slot's generation when the record was put there. A key is live
/// while its record is in the slab; once the record is removed the slot's generation moves on,
/// so the key (and every copy of it held by an event or a queue) goes stale, even after the
/// slot is reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SlotKey {
    slot: u32,
    generation: u32,
}

impl SlotKey {
    /// The slot's index (for a model's own side tables).
    pub fn slot(self) -> u32 {
        self.slot
    }
}

/// Records of type `T` in slots that are reused once freed, so memory follows the records alive
/// at once, not how many were ever made. Insert, lookup and removal are O(1).
///
/// Freed slots are reused last-freed first; which slot a record gets never changes a number,
/// only where it is kept.
///
/// ```
/// use tail_lab_core::des::Slab;
/// let mut jobs = Slab::new();
/// let a = jobs.insert(1.5);
/// assert_eq!(jobs.get(a), Some(&1.5));
/// assert_eq!(jobs.remove(a), Some(1.5));
/// let b = jobs.insert(2.5); // reuses a's slot
/// assert_eq!((jobs.get(a), jobs.get(b)), (None, Some(&2.5)));
/// ```
#[derive(Debug, Clone)]
pub struct Slab<T> {
    entries: Vec<Entry<T>>,
    free: Vec<u32>,
    live: usize,
}

#[derive(Debug, Clone)]
struct Entry<T> {
    generation: u32,
    value: Option<T>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Slab<T> {
    /// An empty slab.
    pub fn new() -> Self {
        Slab {
            entries: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }

    /// Stores `value` and returns its key.
    #[inline]
    pub fn insert(&mut self, value: T) -> SlotKey {
        self.live += 1;
        match self.free.pop() {
            Some(slot) => {
                let e = &mut self.entries[slot as usize];
                e.value = Some(value);
                SlotKey {
                    slot,
                    generation: e.generation,
                }
            }
            None => {
                let slot = u32::try_from(self.entries.len()).expect("at most 2^32 live records");
                self.entries.push(Entry {
                    generation: 0,
                    value: Some(value),
                });
                SlotKey {
                    slot,
                    generation: 0,
                }
            }
        }
    }

    /// The record `key` names, or `None` when the key is stale.
    #[inline]
    pub fn get(&self, key: SlotKey) -> Option<&T> {
        let e = &self.entries[key.slot as usize];
        if e.generation == key.generation {
            e.value.as_ref()
        } else {
            None
        }
    }

    /// The record `key` names, mutably, or `None` when the key is stale.
    #[inline]
    pub fn get_mut(&mut self, key: SlotKey) -> Option<&mut T> {
        let e = &mut self.entries[key.slot as usize];
        if e.generation == key.generation {
            e.value.as_mut()
        } else {
            None
        }
    }

    /// True while `key` names a record in the slab.
    #[inline]
    pub fn contains(&self, key: SlotKey) -> bool {
        self.get(key).is_some()
    }

    /// Removes the record `key` names and returns it (`None`, and nothing changes, when the key
    /// is stale). Every copy of the key goes stale.
    #[inline]
    pub fn remove(&mut self, key: SlotKey) -> Option<T> {
        let e = &mut self.entries[key.slot as usize];
        if e.generation != key.generation {
            return None;
        }
        let value = e.value.take();
        e.generation = e.generation.wrapping_add(1);
        self.free.push(key.slot);
        self.live -= 1;
        value
    }

    /// Records in the slab.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when the slab holds no record.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Slots ever made: the slab's memory, in records.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }
}
