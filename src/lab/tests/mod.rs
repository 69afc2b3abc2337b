//! Tests of the lab equipment: the matrix-palette skinning baseline against its f64 reference.

mod skin_matrix;
