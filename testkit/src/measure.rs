//! What this process has used so far, for the scale examples that report
//! time and memory per instruction. Linux only (read from `/proc/self`);
//! `None` elsewhere.

/// Peak resident set size (`VmHWM`) in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// CPU time (user plus system) of this process in seconds, from
/// `/proc/self/stat` in clock ticks of 10 ms: on a loaded machine it
/// measures the work where wall time does not.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_os = "linux")]
    fn a_running_process_has_used_memory_and_time() {
        let v: Vec<u64> = (0..1_000_000).collect();
        assert!(super::peak_rss_mib().unwrap() > 1.0);
        assert!(super::cpu_seconds().unwrap() >= 0.0);
        drop(v);
    }
}
