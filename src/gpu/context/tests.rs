//! The context's own checks: a stage's needs against a device, and buffer sizes against its
//! limits, fail with errors that name what is missing.

use super::{GpuContext, GpuError, StageNeeds};
use crate::testing::gpu;

#[test]
fn a_missing_feature_is_named() {
    let adapter = gpu().adapter.clone();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("application"),
        required_features: wgpu::Features::empty(),
        required_limits: wgpu::Limits::default(),
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("the adapter refused the application's device: {e}"));
    let ctx = GpuContext::from_device(adapter, device, queue).unwrap_or_else(|e| panic!("{e}"));
    let needs = StageNeeds {
        features: wgpu::Features::TEXTURE_COMPRESSION_BC,
        ..StageNeeds::none("a BC stage")
    };
    match ctx.check(&needs) {
        Err(GpuError::MissingFeature { stage, feature, .. }) => {
            assert_eq!(
                (stage, feature.as_str()),
                ("a BC stage", "TEXTURE_COMPRESSION_BC")
            );
        }
        other => panic!("expected MissingFeature, got {other:?}"),
    }
    assert!(ctx.check(&StageNeeds::none("nothing")).is_ok());
}

#[test]
fn a_buffer_beyond_the_limits_is_named() {
    let huge = gpu().check_storage_size("a test buffer", u64::MAX);
    assert!(matches!(&huge, Err(GpuError::TooLarge { .. })), "{huge:?}");
    assert!(huge.unwrap_err().to_string().contains("a test buffer"));
}
