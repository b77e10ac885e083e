//===- TpcDialect.cpp - The tpc dialect and its attributes ------*- C++ -*-===//

#include "dialects/tpc/TpcDialect.h"
#include "dialects/tpc/TpcAttrs.h"
#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <utility>

using namespace mlir;
using namespace tpc;

#include "dialects/tpc/TpcDialect.cpp.inc"
#include "dialects/tpc/TpcEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tpc/TpcAttrs.cpp.inc"

void TpcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/tpc/TpcAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tpc/TpcOps.cpp.inc"
      >();
}

LogicalResult TpcDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  if (attribute.getName() != kTpAttrName)
    return success();
  if (!isa<ModuleOp>(op))
    return op->emitError("'")
           << kTpAttrName
           << "' is the tensor-parallel size of a module; put it on the "
              "builtin.module, not on '"
           << op->getName() << "'";
  auto value = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!value || !value.getType().isInteger())
    return op->emitError("'")
           << kTpAttrName << "' must be an integer (the tensor-parallel size), "
           << "got " << attribute.getValue();
  if (value.getInt() < 1)
    return op->emitError("'")
           << kTpAttrName << "' must be >= 1, got " << value.getInt();
  return success();
}

//===----------------------------------------------------------------------===//
// InitAttr
//===----------------------------------------------------------------------===//

double InitAttr::getEffectiveStd() const {
  double std = getStd().convertToDouble();
  if (getResidualLayers() > 0)
    return std / std::sqrt(2.0 * static_cast<double>(getResidualLayers()));
  return std;
}

LogicalResult InitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               InitKind kind, llvm::APFloat stdValue,
                               int64_t residualLayers) {
  double std = stdValue.convertToDouble();
  if (kind == InitKind::normal && !(std > 0.0 && std::isfinite(std)))
    return emitError() << "normal initializer needs a finite std > 0, got "
                       << std;
  if (kind != InitKind::normal && (std != 0.0 || residualLayers != 0))
    return emitError() << "'" << stringifyInitKind(kind)
                       << "' initializer takes no std or residual_layers";
  if (residualLayers < 0)
    return emitError() << "residual_layers must be >= 0, got "
                       << residualLayers;
  return success();
}

// #tpc.init<normal, std = 0.02[, residual_layers = L]> | <zeros> | <ones>
Attribute InitAttr::parse(AsmParser &parser, Type) {
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<InitKind> kind = symbolizeInitKind(kindName);
  if (!kind) {
    parser.emitError(parser.getCurrentLocation())
        << "unknown initializer '" << kindName
        << "'; expected normal, zeros or ones";
    return {};
  }
  double std = 0.0;
  int64_t layers = 0;
  bool seenStd = false, seenLayers = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key))
      return {};
    if ((key == "std" && std::exchange(seenStd, true)) ||
        (key == "residual_layers" && std::exchange(seenLayers, true))) {
      parser.emitError(keyLoc)
          << "initializer field '" << key << "' is given twice";
      return {};
    }
    if (parser.parseEqual())
      return {};
    if (key == "std") {
      if (parser.parseFloat(std))
        return {};
    } else if (key == "residual_layers") {
      if (parser.parseInteger(layers))
        return {};
    } else {
      parser.emitError(keyLoc) << "unknown initializer field '" << key
                               << "'; expected std or residual_layers";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<InitAttr>(parser.getContext(), *kind,
                                     llvm::APFloat(std), layers);
}

void InitAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyInitKind(getKind());
  if (getKind() == InitKind::normal) {
    printer << ", std = ";
    printer.printFloat(getStd());
  }
  if (getResidualLayers() > 0)
    printer << ", residual_layers = " << getResidualLayers();
  printer << ">";
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

LayoutAttr LayoutAttr::getReplicated(MLIRContext *ctx) {
  return LayoutAttr::get(ctx, LayoutKind::replicated, -1, 1);
}

LayoutAttr LayoutAttr::getSplit(MLIRContext *ctx, int64_t dim, int64_t blocks) {
  return LayoutAttr::get(ctx, LayoutKind::split, dim, blocks);
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 LayoutKind kind, int64_t dim, int64_t blocks) {
  if (kind == LayoutKind::split) {
    if (dim < 0)
      return emitError() << "split layout needs a dimension >= 0, got " << dim;
    if (blocks < 1)
      return emitError() << "split layout needs blocks >= 1, got " << blocks;
  } else if (dim != -1 || blocks != 1) {
    return emitError() << "'" << stringifyLayoutKind(kind)
                       << "' layout takes no dimension or blocks";
  }
  return success();
}

FailureOr<SmallVector<int64_t>> LayoutAttr::localShape(ArrayRef<int64_t> global,
                                                       int64_t tp) const {
  SmallVector<int64_t> local(global);
  if (!isSplit() || tp == 1)
    return local;
  if (getDim() >= static_cast<int64_t>(global.size()))
    return failure();
  int64_t extent = global[getDim()];
  if (ShapedType::isDynamic(extent))
    return failure();
  if (extent % (getBlocks() * tp) != 0)
    return failure();
  local[getDim()] = extent / tp;
  return local;
}

// #tpc.layout<replicated> | <split D[ blocks K]> | <partial>
Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<LayoutKind> kind = symbolizeLayoutKind(kindName);
  if (!kind) {
    parser.emitError(parser.getCurrentLocation())
        << "unknown layout '" << kindName
        << "'; expected replicated, split or partial";
    return {};
  }
  int64_t dim = -1, blocks = 1;
  if (*kind == LayoutKind::split) {
    if (parser.parseInteger(dim))
      return {};
    if (succeeded(parser.parseOptionalKeyword("blocks")) &&
        parser.parseInteger(blocks))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<LayoutAttr>(parser.getContext(), *kind, dim, blocks);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyLayoutKind(getKind());
  if (isSplit()) {
    printer << " " << getDim();
    if (getBlocks() != 1)
      printer << " blocks " << getBlocks();
  }
  printer << ">";
}
