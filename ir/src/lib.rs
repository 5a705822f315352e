//! SSA intermediate representation: entity-indexed arenas, a Noir-compatible text format, a verifier, CFG analyses, an interpreter and a program generator.
#![deny(missing_docs)]
