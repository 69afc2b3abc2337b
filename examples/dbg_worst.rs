use qtangent::measure::*;
use qtangent::Format;
fn main() {
    let frames = table_frames(1_000_000);
    for format in [Format::Snorm16x4, Format::Smallest3x4] {
        let mut worst = (0.0, 0usize);
        for (i, f) in frames.iter().enumerate() {
            let mut b = Vec::new();
            format.encode_into(&f.to_qtangent(), &mut b);
            let d = format.decode(&b).to_frame();
            let e = angle_deg(f.normal, d.normal)
                .max(angle_deg(f.tangent, d.tangent))
                .max(angle_deg(f.bitangent, d.bitangent));
            if e > worst.0 {
                worst = (e, i);
            }
        }
        let f = frames[worst.1];
        let q = f.to_qtangent();
        println!(
            "{} worst {} at {} q {:?} bytes",
            format.name(),
            worst.0,
            worst.1,
            q.rotation
        );
        // exact f32 rotation vs the source frame
        let back = q.to_frame();
        println!(
            "  f32 round-trip error {}",
            angle_deg(f.normal, back.normal)
                .max(angle_deg(f.tangent, back.tangent))
                .max(angle_deg(f.bitangent, back.bitangent))
        );
    }
}
