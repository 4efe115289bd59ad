//! `--shard i/n`: the part of a run one CI job does. Functions whose last exploration time the
//! results store has are spread so that the shards' times come out even (longest first, each to
//! the shard with the least time so far, as pytest-split balances by durations); the others by
//! a stable hash of their file (as shown) and ID, diagnostics without a function by their file.
//! Every shard that reads the same times computes the same partition, and `lacuna merge` of the
//! `n` outputs is the output of one unsharded run.

use rustc_hash::FxHashMap;

/// Part `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// A `--shard` value that is not `i/n` with 1 ≤ i ≤ n (as written).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a shard: write i/n with 1 ≤ i ≤ n (`--shard 2/4`)")]
pub struct NotAShard(String);

impl std::str::FromStr for Shard {
    type Err = NotAShard;

    /// `i/n`, 1 ≤ i ≤ n.
    fn from_str(s: &str) -> Result<Shard, NotAShard> {
        let bad = || NotAShard(s.to_owned());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if i == 0 || n == 0 || i > n {
            return Err(bad());
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// FNV-1a: the same on every machine and every build, unlike `std`'s hasher.
fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        for b in part.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn shown(path: &std::path::Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

impl Shard {
    /// The SARIF `automationDetails.id` of this shard's run.
    pub fn automation(shard: Option<Shard>) -> String {
        match shard {
            None => "lacuna/check/".to_owned(),
            Some(s) => format!("lacuna/check/shard-{}-of-{}", s.index + 1, s.count),
        }
    }
}

/// The shard (0-based) the stable hash gives the function `id` of `path` (or what `path` has
/// outside functions).
fn hashed(count: u32, path: &str, id: Option<&str>) -> u32 {
    let h = match id {
        Some(q) => fnv(&[path, q]),
        None => fnv(&[path]),
    };
    (h % u64::from(count)) as u32
}

/// A shard of a run with the partition it is part of.
#[derive(Clone, Debug)]
pub struct Part {
    pub shard: Shard,
    /// The shard of each function balanced by its time, by (file as shown, function ID).
    balanced: FxHashMap<(String, String), u32>,
}

impl Part {
    /// Part `shard` of a run whose functions are `functions`: (file as shown, function ID, last
    /// exploration time in ms when the store has one). Those with a time are spread longest
    /// first, each to the shard with the least time so far (the lowest on a tie); those without
    /// go where the stable hash puts them, counted at the mean of the known times. With no
    /// time known, the partition is the stable hash's.
    pub fn new(shard: Shard, functions: &[(&std::path::Path, &str, Option<u64>)]) -> Part {
        let known: Vec<u64> = functions.iter().filter_map(|f| f.2).collect();
        let mut balanced = FxHashMap::default();
        if !known.is_empty() {
            let mean = (known.iter().sum::<u64>() / known.len() as u64).max(1);
            let mut load = vec![0u64; shard.count as usize];
            let mut timed = vec![];
            for &(path, id, time) in functions {
                let path = shown(path);
                match time {
                    Some(ms) => timed.push((ms.max(1), path, id.to_owned())),
                    None => load[hashed(shard.count, &path, Some(id)) as usize] += mean,
                }
            }
            timed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| (&a.1, &a.2).cmp(&(&b.1, &b.2))));
            for (ms, path, id) in timed {
                let (least, _) = load
                    .iter()
                    .enumerate()
                    .min_by_key(|&(i, l)| (*l, i))
                    .expect("at least one shard");
                load[least] += ms;
                balanced.insert((path, id), least as u32);
            }
        }
        Part { shard, balanced }
    }

    /// Whether this shard does the function `id` of `path`, or (`None`) what `path` has outside
    /// functions.
    pub fn owns(&self, path: &std::path::Path, id: Option<&str>) -> bool {
        let path = shown(path);
        match id.and_then(|id| self.balanced.get(&(path.clone(), id.to_owned()))) {
            Some(&i) => i == self.shard.index,
            None => hashed(self.shard.count, &path, id) == self.shard.index,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stored times decide: the longest function alone in one shard, the rest in the other,
    /// whatever the hash says; every function in exactly one shard; no time, the hash.
    #[test]
    fn functions_are_balanced_by_their_stored_times() {
        let path = std::path::Path::new("pkg/m.py");
        let names = ["slow", "a", "b", "c", "d", "e"];
        let timed: Vec<(&std::path::Path, &str, Option<u64>)> = names
            .iter()
            .map(|&n| (path, n, Some(if n == "slow" { 3000 } else { 100 })))
            .collect();
        let parts: Vec<Part> = (1..=2)
            .map(|i| Part::new(format!("{i}/2").parse().unwrap(), &timed))
            .collect();
        let of = |part: &Part| -> Vec<&str> {
            names
                .iter()
                .copied()
                .filter(|n| part.owns(path, Some(n)))
                .collect()
        };
        assert_eq!(of(&parts[0]), ["slow"]);
        assert_eq!(of(&parts[1]), ["a", "b", "c", "d", "e"]);
        // Without times: the stable hash, which knows nothing of durations.
        let untimed: Vec<(&std::path::Path, &str, Option<u64>)> =
            names.iter().map(|&n| (path, n, None)).collect();
        let part = Part::new("1/2".parse().unwrap(), &untimed);
        for n in names {
            assert_eq!(
                part.owns(path, Some(n)),
                hashed(2, "pkg/m.py", Some(n)) == part.shard.index
            );
        }
        // Some times known: the others go by the hash, counted at the mean.
        let mixed: Vec<(&std::path::Path, &str, Option<u64>)> = names
            .iter()
            .map(|&n| (path, n, (n != "e").then_some(100)))
            .collect();
        let parts: Vec<Part> = (1..=2)
            .map(|i| Part::new(format!("{i}/2").parse().unwrap(), &mixed))
            .collect();
        for n in names {
            let owners = parts.iter().filter(|p| p.owns(path, Some(n))).count();
            assert_eq!(owners, 1, "{n}");
        }
        assert_eq!(
            parts[0].owns(path, Some("e")),
            hashed(2, "pkg/m.py", Some("e")) == 0
        );
    }

    #[test]
    fn every_function_falls_in_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=4).map(|i| format!("{i}/4").parse().unwrap()).collect();
        for name in ["a", "b.c", "C.__init__", "f#2", ""] {
            let owners = shards
                .iter()
                .filter(|s| hashed(s.count, "pkg/m.py", Some(name)) == s.index)
                .count();
            assert_eq!(owners, 1, "{name}");
        }
        assert!("0/4".parse::<Shard>().is_err());
        assert!("5/4".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        assert_eq!("2/4".parse::<Shard>().unwrap().to_string(), "2/4");
    }
}
