// Quaternion-map bake (stub, being written).
