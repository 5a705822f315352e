//! A generic Kildall fixed-point solver: lattices, `Forward`/`Backward` directions, a worklist seeded in reverse post-order, block-entry results and a cursor.
#![deny(missing_docs)]
