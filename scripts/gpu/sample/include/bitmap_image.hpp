// A stand-in, written for cudalint's --confirm runs (not the bitmap_image library), for the
// `bitmap_image.hpp` that HeCBench's sad-cuda includes but the corpus lacks: what sad-cuda uses of
// it (load a 24-bit uncompressed BMP, width(), height(), get_pixel()). Unreadable files give a
// 0 x 0 image.
#pragma once
#include <cstdint>
#include <cstdio>
#include <vector>

struct rgb_t { unsigned char red, green, blue; };

class bitmap_image {
 public:
  explicit bitmap_image(const char* path) { load(path); }
  unsigned int width() const { return width_; }
  unsigned int height() const { return height_; }
  void get_pixel(unsigned int x, unsigned int y, rgb_t& c) const {
    const unsigned char* p = &bgr_[(static_cast<size_t>(y) * width_ + x) * 3];
    c.blue = p[0]; c.green = p[1]; c.red = p[2];
  }

 private:
  void load(const char* path) {
    FILE* f = std::fopen(path, "rb");
    if (!f) return;
    unsigned char h[54];
    if (std::fread(h, 1, 54, f) == 54 && h[0] == 'B' && h[1] == 'M' && h[28] == 24) {
      uint32_t offset = h[10] | h[11] << 8 | h[12] << 16 | uint32_t(h[13]) << 24;
      int32_t w = h[18] | h[19] << 8 | h[20] << 16 | int32_t(h[21]) << 24;
      int32_t ht = h[22] | h[23] << 8 | h[24] << 16 | int32_t(h[25]) << 24;
      bool bottom_up = ht > 0;
      unsigned int rows = bottom_up ? ht : -ht, stride = (3 * w + 3) / 4 * 4;
      std::vector<unsigned char> raw(static_cast<size_t>(stride) * rows);
      if (w > 0 && std::fseek(f, offset, SEEK_SET) == 0 && std::fread(raw.data(), 1, raw.size(), f) == raw.size()) {
        width_ = w; height_ = rows;
        bgr_.resize(static_cast<size_t>(w) * rows * 3);
        for (unsigned int r = 0; r < rows; r++) {
          unsigned int src = bottom_up ? rows - 1 - r : r;
          for (unsigned int i = 0; i < 3u * w; i++) bgr_[(static_cast<size_t>(r) * w) * 3 + i] = raw[src * stride + i];
        }
      }
    }
    std::fclose(f);
  }
  unsigned int width_ = 0, height_ = 0;
  std::vector<unsigned char> bgr_;
};
