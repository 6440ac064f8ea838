// One backend our kernels run on: loading bundles and making buffers on its device.
#include "OursDevice.h"

#include <utility>

namespace cajeta::gpubench {

OursDevice::OursDevice(xpu::Device Dev, std::string Dir)
    : D(Dev), S(Dev), BundleDir(std::move(Dir)) {}

std::string OursDevice::describe() const {
  return D.backend() + " '" + D.name() + "'";
}

xpu::Program OursDevice::load(const std::string& Name) const {
  return xpu::Program::load(BundleDir + "/" + Name + ".cjx", D);
}

} // namespace cajeta::gpubench
