// The host support ABI by name (HostSymbols.h).
#include "HostSymbols.h"

#include "cajeta/xpu/cajeta_host.h"

#include <dlfcn.h>
#include <filesystem>

namespace cajeta::cli {

std::vector<lowering::HostSymbol> hostSymbols() {
#define CAJETA_HOST_SYMBOL(F)                                                                      \
  { #F, reinterpret_cast < void*>(&F) }
  return {
      CAJETA_HOST_SYMBOL(cajeta_host_exit),
      CAJETA_HOST_SYMBOL(cajeta_host_pending),
      CAJETA_HOST_SYMBOL(cajeta_host_set_args),
      CAJETA_HOST_SYMBOL(cajeta_host_arg_count),
      CAJETA_HOST_SYMBOL(cajeta_host_arg),
      CAJETA_HOST_SYMBOL(cajeta_host_parse_i32),
      CAJETA_HOST_SYMBOL(cajeta_host_parse_i64),
      CAJETA_HOST_SYMBOL(cajeta_host_parse_f32),
      CAJETA_HOST_SYMBOL(cajeta_host_parse_f64),
      CAJETA_HOST_SYMBOL(cajeta_host_string_length),
      CAJETA_HOST_SYMBOL(cajeta_host_string_equals),
      CAJETA_HOST_SYMBOL(cajeta_host_catch),
      CAJETA_HOST_SYMBOL(cajeta_host_print_caught),
      CAJETA_HOST_SYMBOL(cajeta_host_array_new),
      CAJETA_HOST_SYMBOL(cajeta_host_index_fail),
      CAJETA_HOST_SYMBOL(cajeta_host_buffer_new),
      CAJETA_HOST_SYMBOL(cajeta_host_buffer_upload),
      CAJETA_HOST_SYMBOL(cajeta_host_buffer_download),
      CAJETA_HOST_SYMBOL(cajeta_host_buffer_length),
      CAJETA_HOST_SYMBOL(cajeta_host_accel_new),
      CAJETA_HOST_SYMBOL(cajeta_host_stream_current),
      CAJETA_HOST_SYMBOL(cajeta_host_stream_new),
      CAJETA_HOST_SYMBOL(cajeta_host_stream_sync),
      CAJETA_HOST_SYMBOL(cajeta_host_stream_record),
      CAJETA_HOST_SYMBOL(cajeta_host_stream_wait),
      CAJETA_HOST_SYMBOL(cajeta_host_event_sync),
      CAJETA_HOST_SYMBOL(cajeta_host_launch),
      CAJETA_HOST_SYMBOL(cajeta_host_supports),
      CAJETA_HOST_SYMBOL(cajeta_host_print_str),
      CAJETA_HOST_SYMBOL(cajeta_host_print_i64),
      CAJETA_HOST_SYMBOL(cajeta_host_print_u64),
      CAJETA_HOST_SYMBOL(cajeta_host_print_f32),
      CAJETA_HOST_SYMBOL(cajeta_host_print_f64),
      CAJETA_HOST_SYMBOL(cajeta_host_print_bool),
      CAJETA_HOST_SYMBOL(cajeta_host_print_newline),
      CAJETA_HOST_SYMBOL(cajeta_host_printf),
  };
#undef CAJETA_HOST_SYMBOL
}

std::string runtimeLibraryDir() {
  Dl_info Info{};
  if (!::dladdr(reinterpret_cast<void*>(&cajeta_xpu_last_error), &Info) || !Info.dli_fname)
    return {};
  std::error_code EC;
  std::filesystem::path Library = std::filesystem::canonical(Info.dli_fname, EC);
  return EC ? std::string() : Library.parent_path().string();
}

} // namespace cajeta::cli
