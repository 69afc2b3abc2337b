//! Quaternion maps on the GPU: upload with mips, and sampling (stub, being written).
