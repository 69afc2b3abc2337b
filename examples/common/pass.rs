//! An application's render pass, as the tools that draw into their own targets make it: a colour
//! target and a depth buffer, both cleared. Included by those tools
//! (`#[path = "<relative path>/examples/common/pass.rs"] mod pass;`).

#![allow(dead_code)] // each tool uses what it needs

use qtangent::gpu::GpuContext;

/// A 2D render target of `size` (width, height) in `format`, one level, that can be drawn into
/// and copied from.
pub fn target(
    ctx: &GpuContext,
    label: &str,
    format: wgpu::TextureFormat,
    size: (u32, u32),
) -> wgpu::Texture {
    ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Begins a render pass into `color`, cleared to `clear`, with the depth buffer `depth` cleared
/// to 1 (the far plane); both are stored.
pub fn begin<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    color: &wgpu::TextureView,
    clear: wgpu::Color,
    depth: &wgpu::TextureView,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(clear),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        ..Default::default()
    })
}
