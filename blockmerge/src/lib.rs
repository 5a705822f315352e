//! Merging basic blocks into merge components for per-block proof backends (sumcheck-style block provers).
#![deny(missing_docs)]
