// Quaternion-map sampling (stub, being written).
