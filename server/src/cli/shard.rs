//! `--shard i/n`: the part of a run one CI job does. Functions are partitioned by a stable hash
//! of their file (as shown) and ID, diagnostics without a function by their file, so
//! that every machine computes the same partition and `lacuna merge` of the `n` outputs is the
//! output of one unsharded run.

/// Part `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `i/n`, 1 ≤ i ≤ n.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard: write i/n with 1 ≤ i ≤ n (`--shard 2/4`)");
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

impl Shard {
    /// Whether this shard does the function `id` of `path`, or (`None`) what `path` has
    /// outside functions.
    pub fn owns(&self, path: &std::path::Path, id: Option<&str>) -> bool {
        let path = path.to_string_lossy().replace('\\', "/");
        let h = match id {
            Some(q) => fnv(&[&path, q]),
            None => fnv(&[&path]),
        };
        h % u64::from(self.count) == u64::from(self.index)
    }

    /// The SARIF `automationDetails.id` of this shard's run.
    pub fn automation(shard: Option<Shard>) -> String {
        match shard {
            None => "lacuna/check/".to_owned(),
            Some(s) => format!("lacuna/check/shard-{}-of-{}", s.index + 1, s.count),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_falls_in_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=4).map(|i| format!("{i}/4").parse().unwrap()).collect();
        for name in ["a", "b.c", "C.__init__", "f#2", ""] {
            let owners = shards
                .iter()
                .filter(|s| s.owns(std::path::Path::new("pkg/m.py"), Some(name)))
                .count();
            assert_eq!(owners, 1, "{name}");
        }
        assert!("0/4".parse::<Shard>().is_err());
        assert!("5/4".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        assert_eq!("2/4".parse::<Shard>().unwrap().to_string(), "2/4");
    }
}
