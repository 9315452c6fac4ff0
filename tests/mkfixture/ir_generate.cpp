// "generate" inside an `ir` or `graph_proto` description (README.md, "Generated graphs"): a
// realistic network of a given number of nodes for benchmarks, stated as an ordinary description
// (params and graphs) that the ir and graph_proto writers then print, so that the .ir and the .pb
// of one seed hold the same graph. The network resembles a MindSpore 2.3+ training graph: a ResNet
// stem and residual blocks (Conv2D, BatchNorm, ReLU, Add), then transformer encoder layers (MatMul,
// BatchMatMul, Softmax, LayerNorm), with Load/UpdateState on every weight, fullnames with scopes,
// source lines, and a few GeLU subgraphs the encoder layers call.
//
// Every operand, type and "# Order:" entry is stated explicitly: the ir writer derives what is
// missing by scanning the nodes before, which is quadratic in the graph's size.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "payloads.h"

namespace msdt::fixture {
namespace {

// splitmix64: the same stream on every platform, unlike the std distributions.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return s;
}
std::string tensor(const std::vector<int64_t>& dims) {
  return "<Tensor[Float32], (" + dims_text(dims) + ")>";
}

// An operand: as written in the node line, as named in "# Order:", and its type.
struct Value {
  std::string ref;
  std::string name;
  std::string type;
  std::vector<int64_t> shape;
};

Value constant(const std::string& text, const std::string& type) { return {text, text, type, {}}; }

constexpr const char* kRoot = "Default/network-WithLossCell/_backbone-ResNetTransformer";
constexpr const char* kFile = "/home/ma-user/work/models/resnet_transformer.py";

struct Graph {
  std::string name;
  json nodes = json::array();
  int64_t next_id = 0;
};

struct Generator {
  Rng rng{1};
  json params = json::array();
  uint64_t next_uid = 100;
  uint64_t next_op = 0;
  size_t nodes = 0;                   // node lines written, Returns included
  Value state;                        // the UpdateState chain (starts at the UMonad parameter)
  std::vector<size_t> uses_of_monad;  // entry nodes that read the monad before it is numbered
  std::vector<std::string> subgraphs;
  size_t next_subgraph = 0;

  Value param(const std::string& name, const std::vector<int64_t>& shape, bool weight) {
    json p = json::object();
    p["name"] = name;
    p["type"] = weight ? "Ref[Tensor[Float32]]" : "Tensor[Float32]";
    p["shape"] = shape;
    if (weight) p["default"] = true;
    params.push_back(std::move(p));
    std::string type =
        weight ? "<Ref[Tensor[Float32]], (" + dims_text(shape) + ")>" : tensor(shape);
    return {"%para" + std::to_string(params.size()) + "_" + name, name, type, shape};
  }

  // A node: `op(inputs)` with its type line, fullname, source lines and "# Order:" entry.
  Value emit(Graph& g, const std::string& op, const std::vector<Value>& inputs,
             const std::string& type_out, const std::vector<int64_t>& shape,
             const std::string& scope, const std::string& attrs = {},
             const std::vector<std::string>& source = {}) {
    const uint64_t uid = next_uid++;
    const std::string name = "CNode_" + std::to_string(uid);
    json n = json::object();
    n["name"] = name;
    n["op"] = op;
    json refs = json::array(), types = json::array();
    std::string order = "@" + g.name + ":" + name + "{[0]: " +
                        (op.starts_with("call @") ? "ValueNode<FuncGraph> " + op.substr(6)
                                                  : "ValueNode<Primitive> " + op);
    for (size_t i = 0; i < inputs.size(); ++i) {
      refs.push_back(inputs[i].ref);
      types.push_back(inputs[i].type);
      order += ", [" + std::to_string(i + 1) + "]: " + inputs[i].name;
    }
    n["inputs"] = std::move(refs);
    n["type_in"] = std::move(types);
    n["type_out"] = type_out;
    if (!attrs.empty()) n["primitive_attrs"] = attrs;
    std::string leaf = op.starts_with("call @") ? "call" : op;
    n["scope"] = scope + "/" + leaf + "-op" + std::to_string(next_op++);
    n["fullname"] = true;
    if (!source.empty()) n["source"] = source;
    n["order"] = order + "}";
    g.nodes.push_back(std::move(n));
    ++nodes;
    return {"%" + std::to_string(g.next_id++), name, type_out, shape};
  }

  void emit_return(Graph& g, const Value& v, const std::string& scope) {
    const uint64_t uid = next_uid++;
    json n = json::object();
    n["return"] = v.ref;
    n["name"] = "CNode_" + std::to_string(uid);
    n["type_in"] = json::array({v.type});
    n["scope"] = scope;
    n["order"] = "@" + g.name + ":CNode_" + std::to_string(uid) +
                 "{[0]: ValueNode<Primitive> Return, [1]: " + v.name + "}";
    g.nodes.push_back(std::move(n));
    ++nodes;
  }

  std::vector<std::string> source(uint64_t line, const std::string& code,
                                  const std::string& caller) {
    // The statement, then (as 2.3 prints the call stack) the line of the cell that called it.
    std::vector<std::string> lines{std::string(kFile) + ":" + std::to_string(line) + ", 8~" +
                                   std::to_string(8 + code.size()) + "/        " + code + "/"};
    if (!caller.empty())
      lines.push_back(std::string(kFile) + ":" + std::to_string(400 + rng.below(200)) + ", 12~" +
                      std::to_string(12 + caller.size()) + "/            " + caller + "/");
    return lines;
  }

  // Load of a weight on the UpdateState chain, and the UpdateState after it.
  Value load(Graph& g, const Value& weight) {
    const bool first = state.ref.starts_with("%para?");
    if (first) uses_of_monad.push_back(g.nodes.size());
    Value w = emit(g, "Load", {weight, state}, tensor(weight.shape), weight.shape, "Default");
    if (first) uses_of_monad.push_back(g.nodes.size());
    state = emit(g, "UpdateState", {state, w}, "<UMonad>", {}, "Default");
    return w;
  }

  // Conv2D + BatchNorm (+ ReLU): 9 or 10 nodes, five parameters.
  Value conv_bn(Graph& g, const Value& x, const std::string& prefix, const std::string& scope,
                int64_t cout, int64_t kernel, int64_t stride, bool relu) {
    const int64_t cin = x.shape[1];
    const std::vector<int64_t> out{x.shape[0], cout, x.shape[2] / stride, x.shape[3] / stride};
    Value w = load(g, param(prefix + "conv.weight", {cout, cin, kernel, kernel}, true));
    const std::string k = std::to_string(kernel), s = std::to_string(stride),
                      pad = std::to_string(kernel / 2);
    Value conv =
        emit(g, "Conv2D", {x, w}, tensor(out), out, scope + "/conv-Conv2d",
             "pad: (" + pad + ", " + pad + ", " + pad + ", " + pad + "), stride: (1, 1, " + s +
                 ", " + s + "), pad_mode: I64(0), out_channel: I64(" + std::to_string(cout) +
                 "), kernel_size: (" + k + ", " + k +
                 "), input_names: [x, w], format: \"NCHW\", groups: I64(1), mode: I64(1), group: "
                 "I64(1), dilation: (1, 1, 1, 1), output_names: [output]",
             source(100 + rng.below(200), "out = self.conv(x)", "x = self.layer(x)"));
    Value gamma = load(g, param(prefix + "bn.gamma", {cout}, true));
    Value beta = load(g, param(prefix + "bn.beta", {cout}, true));
    Value mean = param(prefix + "bn.moving_mean", {cout}, true);
    Value var = param(prefix + "bn.moving_variance", {cout}, true);
    const std::string c = "(" + std::to_string(cout) + ")";
    Value bn = emit(g, "BatchNorm", {conv, gamma, beta, mean, var},
                    "<Tuple[Tensor[Float32]*5], TupleShape((" + dims_text(out) + "), " + c + ", " +
                        c + ", " + c + ", " + c + ")>",
                    {}, scope + "/bn-BatchNorm2d",
                    "epsilon: F32(1e-05), format: \"NCHW\", momentum: F32(0.1), is_training: "
                    "Bool(1), input_names: [x, scale, offset, mean, variance], output_names: [y, "
                    "batch_mean, batch_variance, reserve_space_1, reserve_space_2]",
                    source(100 + rng.below(200), "out = self.bn(out)", ""));
    Value y = emit(g, "TupleGetItem", {bn, constant("I64(0)", "<Int64, NoShape>")}, tensor(out),
                   out, scope + "/bn-BatchNorm2d");
    if (!relu) return y;
    return emit(g, "ReLU", {y}, tensor(out), out, scope + "/relu-ReLU",
                "input_names: [x], output_names: [output]",
                source(100 + rng.below(200), "out = self.relu(out)", ""));
  }

  // A ResNet basic block: two conv units and the shortcut (a third when the shape changes).
  Value residual(Graph& g, const Value& x, int stage, size_t index, int64_t cout, int64_t stride) {
    const std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(index);
    const std::string scope = std::string(kRoot) + "/layer" + std::to_string(stage + 1) +
                              "-SequentialCell/" + std::to_string(index) + "-ResidualBlock";
    Value a = conv_bn(g, x, prefix + ".conv1.", scope + "/conv1", cout, 3, stride, true);
    Value b = conv_bn(g, a, prefix + ".conv2.", scope + "/conv2", cout, 3, 1, false);
    Value shortcut = x;
    if (stride != 1 || x.shape[1] != cout)
      shortcut = conv_bn(g, x, prefix + ".down_sample.", scope + "/down_sample_layer-Conv2d", cout,
                         1, stride, false);
    Value sum = emit(g, "Add", {b, shortcut}, b.type, b.shape, scope + "/add-Add",
                     "input_names: [x, y], output_names: [output]",
                     source(200 + rng.below(100), "out = self.add(out, identity)", ""));
    return emit(g, "ReLU", {sum}, sum.type, sum.shape, scope + "/relu-ReLU",
                "input_names: [x], output_names: [output]",
                source(200 + rng.below(100), "out = self.relu(out)", ""));
  }

  Value dense(Graph& g, const Value& x, const std::string& weight, int64_t out,
              const std::string& scope) {
    Value w = load(g, param(weight, {out, x.shape[1]}, true));
    const std::vector<int64_t> shape{x.shape[0], out};
    return emit(g, "MatMul", {x, w}, tensor(shape), shape, scope + "-Dense",
                "transpose_a: Bool(0), transpose_b: Bool(1), input_names: [x1, x2], "
                "output_names: [output]",
                source(500 + rng.below(100), "x = self.dense(x)", "out = self.attention(x)"));
  }

  Value reshape(Graph& g, const Value& x, const std::vector<int64_t>& shape,
                const std::string& scope) {
    std::string tuple, types;
    for (int64_t d : shape) {
      tuple += (tuple.empty() ? "" : ", ") + ("I64(" + std::to_string(d) + ")");
      types += (types.empty() ? "" : ", ") + std::string("NoShape");
    }
    return emit(g, "Reshape",
                {x, constant("(" + tuple + ")", "<Tuple[Int64*" + std::to_string(shape.size()) +
                                                    "], TupleShape(" + types + ")>")},
                tensor(shape), shape, scope + "/reshape-Reshape",
                "input_names: [tensor, shape], output_names: [output]");
  }

  Value transpose(Graph& g, const Value& x, const std::vector<int64_t>& perm,
                  const std::string& scope) {
    std::vector<int64_t> shape;
    std::string tuple, types;
    for (int64_t p : perm) {
      shape.push_back(x.shape[static_cast<size_t>(p)]);
      tuple += (tuple.empty() ? "" : ", ") + ("I64(" + std::to_string(p) + ")");
      types += (types.empty() ? "" : ", ") + std::string("NoShape");
    }
    return emit(g, "Transpose",
                {x, constant("(" + tuple + ")", "<Tuple[Int64*" + std::to_string(perm.size()) +
                                                    "], TupleShape(" + types + ")>")},
                tensor(shape), shape, scope + "/transpose-Transpose",
                "input_names: [x, perm], output_names: [output]");
  }

  // A transformer encoder layer over x (tokens, hidden): attention, LayerNorm and a feed-forward
  // part whose activation is a call to one of the GeLU subgraphs.
  Value encoder(Graph& g, const Value& x, int64_t batch, size_t layer) {
    const int64_t tokens = x.shape[0], hidden = x.shape[1], seq = tokens / batch, heads = 8,
                  head = hidden / heads;
    const std::string prefix = "encoder.layers." + std::to_string(layer) + ".";
    const std::string scope = std::string(kRoot) + "/encoder-TransformerEncoder/layers" +
                              std::to_string(layer) + "-TransformerEncoderLayer";
    const std::string att = scope + "/attention-MultiHeadAttention";
    auto split = [&](const Value& v, const std::string& which) {
      Value r = reshape(g, v, {batch, seq, heads, head}, att + "/" + which);
      return transpose(
          g, r,
          which == "key" ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3},
          att + "/" + which);
    };
    Value q =
        split(dense(g, x, prefix + "attention.query.weight", hidden, att + "/query"), "query");
    Value k = split(dense(g, x, prefix + "attention.key.weight", hidden, att + "/key"), "key");
    Value v =
        split(dense(g, x, prefix + "attention.value.weight", hidden, att + "/value"), "value");
    const std::vector<int64_t> scores_shape{batch, heads, seq, seq};
    Value scores = emit(g, "BatchMatMul", {q, k}, tensor(scores_shape), scores_shape,
                        att + "/matmul-BatchMatMul",
                        "transpose_a: Bool(0), transpose_b: Bool(0), input_names: [x1, x2], "
                        "output_names: [output]",
                        source(600 + rng.below(50), "scores = self.matmul(q, k)", ""));
    Value scaled =
        emit(g, "Mul", {scores, constant("F32(0.125)", "<Float32, NoShape>")}, scores.type,
             scores_shape, att + "/mul-Mul", "input_names: [x, y], output_names: [output]");
    Value probs = emit(g, "Softmax", {scaled}, scores.type, scores_shape, att + "/softmax-Softmax",
                       "axis: (I64(-1)), input_names: [x], output_names: [output]",
                       source(600 + rng.below(50), "probs = self.softmax(scores)", ""));
    const std::vector<int64_t> ctx_shape{batch, heads, seq, head};
    Value ctx = emit(g, "BatchMatMul", {probs, v}, tensor(ctx_shape), ctx_shape,
                     att + "/matmul-BatchMatMul",
                     "transpose_a: Bool(0), transpose_b: Bool(0), input_names: [x1, x2], "
                     "output_names: [output]");
    Value merged = reshape(g, transpose(g, ctx, {0, 2, 1, 3}, att), {tokens, hidden}, att);
    Value out = dense(g, merged, prefix + "attention.output.weight", hidden, att + "/output");
    Value res = emit(g, "Add", {out, x}, x.type, x.shape, scope + "/add-Add",
                     "input_names: [x, y], output_names: [output]");
    Value gamma = load(g, param(prefix + "layernorm.gamma", {hidden}, true));
    Value beta = load(g, param(prefix + "layernorm.beta", {hidden}, true));
    Value ln = emit(g, "LayerNorm", {res, gamma, beta},
                    "<Tuple[Tensor[Float32]*3], TupleShape((" + dims_text(x.shape) + "), (" +
                        std::to_string(tokens) + ", 1), (" + std::to_string(tokens) + ", 1))>",
                    {}, scope + "/layernorm-LayerNorm",
                    "begin_norm_axis: I64(-1), begin_params_axis: I64(-1), epsilon: F32(1e-07), "
                    "input_names: [x, gamma, beta], output_names: [y, mean, variance]",
                    source(650 + rng.below(50), "x = self.layernorm(x + attention)", ""));
    Value y = emit(g, "TupleGetItem", {ln, constant("I64(0)", "<Int64, NoShape>")}, x.type, x.shape,
                   scope + "/layernorm-LayerNorm");
    Value h = dense(g, y, prefix + "ffn.dense1.weight", 4 * hidden, scope + "/ffn/dense1");
    if (!subgraphs.empty()) {
      const std::string callee = subgraphs[next_subgraph++ % subgraphs.size()];
      h = emit(g, "call @" + callee, {h}, h.type, h.shape, scope + "/ffn", {},
               source(700 + rng.below(50), "h = self.gelu(h)", ""));
    }
    Value f = dense(g, h, prefix + "ffn.dense2.weight", hidden, scope + "/ffn/dense2");
    return emit(g, "Add", {f, y}, x.type, x.shape, scope + "/add-Add",
                "input_names: [x, y], output_names: [output]");
  }
};

}  // namespace

json generate_ir(const Node& ir) {
  const Node spec = ir.at("generate");
  spec.check_keys({"nodes", "seed", "subgraphs"});
  for (auto key : {"params", "graphs", "entry"})
    if (ir.has(key))
      ir.at(key).fail("\"generate\" states the graphs; leave out \"" + std::string(key) + "\"");
  const uint64_t total = spec.at("nodes").u64();
  const uint64_t subgraph_count = spec.has("subgraphs") ? spec.at("subgraphs").u64() : 3;
  // Each GeLU subgraph is 5 node lines; the entry graph needs the stem, the bridge to the encoder
  // and the head (at most 12 + subgraphs), with room for padding.
  const uint64_t minimum = 5 * subgraph_count + 30;
  if (total < minimum || subgraph_count > 1000)
    spec.fail("expected \"nodes\" >= " + std::to_string(minimum) +
              " and \"subgraphs\" <= 1000 (each subgraph takes 5 nodes)");

  Generator gen;
  gen.rng.state = spec.has("seed") ? spec.at("seed").u64() : 1;
  const int64_t batch = 32;
  Graph entry{"1_construct_wrapper_" + std::to_string(100 + gen.rng.below(900))};
  std::vector<json> subgraphs;
  for (uint64_t i = 0; i < subgraph_count; ++i)
    gen.subgraphs.push_back(std::to_string(i + 2) + "_construct_GeLU_" +
                            std::to_string(1000 + gen.rng.below(9000)));

  // Entry graph. The monad parameter is numbered last, as MindSpore does; the nodes that read it
  // before it exists are patched below.
  gen.state = {"%para?_u", "u", "<UMonad>", {}};
  const uint64_t budget = total - 5 * subgraph_count;
  constexpr uint64_t kLargestBlock = 64;  // a downsampling block is 30 nodes, an encoder 46
  constexpr uint64_t kTail = 12;          // bridge and head, Return included
  Value x = gen.param("inputs0", {batch, 3, 224, 224}, false);
  const std::string stem = std::string(kRoot) + "/stem";
  x = gen.conv_bn(entry, x, "conv1.", stem + "/conv1", 64, 7, 2, true);
  x = gen.emit(entry, "MaxPool", {x}, tensor({batch, 64, 56, 56}), {batch, 64, 56, 56},
               stem + "/maxpool-MaxPool2d",
               "kernel_size: (1, 1, 3, 3), strides: (1, 1, 2, 2), pad_mode: I64(1), format: "
               "\"NCHW\", input_names: [x], output_names: [output]");
  // ResNet stages over the first ~45% of the nodes, then encoder layers.
  const uint64_t conv_budget = budget * 45 / 100;
  const int64_t channels[] = {64, 128, 256, 512};
  int stage = 0;
  size_t block = 0;
  while (gen.nodes + kLargestBlock + kTail <= budget && gen.nodes < conv_budget) {
    const int want = static_cast<int>(std::min<uint64_t>(3, gen.nodes * 4 / conv_budget));
    int64_t stride = 1;
    if (want != stage) {
      stage = want;
      block = 0;
      stride = 2;
    }
    x = gen.residual(entry, x, stage, block++, channels[stage], stride);
  }
  // Bridge: (batch, C, H, W) -> (batch * H * W tokens, C).
  const int64_t hidden = x.shape[1], tokens = batch * x.shape[2] * x.shape[3];
  const std::string bridge = std::string(kRoot) + "/flatten";
  x = gen.transpose(entry, x, {0, 2, 3, 1}, bridge);
  x = gen.reshape(entry, x, {tokens, hidden}, bridge);
  size_t layer = 0;
  while (gen.nodes + kLargestBlock + kTail <= budget) x = gen.encoder(entry, x, batch, layer++);
  // Padding to the exact count, then the head: mean over the tokens of each sample, the
  // classifier, and the Depend that keeps the UpdateState chain alive.
  while (gen.nodes + kTail - 2 < budget)
    x = gen.emit(entry, "ReLU", {x}, x.type, x.shape, std::string(kRoot) + "/relu-ReLU",
                 "input_names: [x], output_names: [output]");
  const std::string head = std::string(kRoot) + "/head";
  x = gen.reshape(entry, x, {batch, tokens / batch, hidden}, head);
  x = gen.emit(entry, "ReduceMean",
               {x, constant("(I64(1))", "<Tuple[Int64], TupleShape(NoShape)>")},
               tensor({batch, hidden}), {batch, hidden}, head + "/mean-ReduceMean",
               "keep_dims: Bool(0), input_names: [input_x, axis], output_names: [y]");
  x = gen.dense(entry, x, "fc.weight", 1000, head + "/fc");
  Value bias = gen.load(entry, gen.param("fc.bias", {1000}, true));
  x = gen.emit(entry, "BiasAdd", {x, bias}, x.type, x.shape, head + "/fc-Dense",
               "format: \"NCHW\", input_names: [x, b], output_names: [output]");
  x = gen.emit(entry, "Depend", {x, gen.state}, x.type, x.shape, "Default",
               "side_effect_propagate: I64(1)");
  gen.emit_return(entry, x, "Default");

  // The monad parameter, last of the entry parameters.
  json u = json::object();
  u["name"] = "u";
  u["type"] = "UMonad";
  gen.params.push_back(std::move(u));
  const std::string u_ref = "%para" + std::to_string(gen.params.size()) + "_u";
  for (size_t i : gen.uses_of_monad)
    for (auto& in : entry.nodes[i]["inputs"])
      if (in == "%para?_u") in = u_ref;

  // The GeLU subgraphs: 0.5 * x * (1 + tanh(x)), each with its own parameter, numbered after
  // the entry parameters and the earlier subgraphs' (as the ir writer numbers them).
  size_t next_param = gen.params.size() + 1;
  for (const std::string& name : gen.subgraphs) {
    Graph g{name};
    const std::vector<int64_t> shape{tokens, 4 * hidden};
    const std::string param_name = "x_" + name.substr(0, name.find('_'));
    Value in{"%para" + std::to_string(next_param++) + "_" + param_name, param_name, tensor(shape),
             shape};
    json p = json::object();
    p["name"] = param_name;
    p["type"] = "Tensor[Float32]";
    p["shape"] = shape;
    json graph_params = json::array();
    graph_params.push_back(std::move(p));
    const std::string scope = std::string(kRoot) + "/gelu-GeLU";
    Value half = gen.emit(g, "Mul", {in, constant("F32(0.5)", "<Float32, NoShape>")}, in.type,
                          shape, scope + "/mul-Mul");
    Value t = gen.emit(g, "Tanh", {in}, in.type, shape, scope + "/tanh-Tanh");
    Value one = gen.emit(g, "Add", {t, constant("F32(1)", "<Float32, NoShape>")}, in.type, shape,
                         scope + "/add-Add");
    Value y = gen.emit(g, "Mul", {half, one}, in.type, shape, scope + "/mul-Mul");
    gen.emit_return(g, y, "Default");
    json graph = json::object();
    graph["name"] = name;
    graph["parent"] = entry.name;
    graph["params"] = std::move(graph_params);
    graph["nodes"] = std::move(g.nodes);
    subgraphs.push_back(std::move(graph));
  }

  json out = json::object();
  for (const auto& [key, value] : ir.value().items())
    if (key != "generate") out[key] = value;
  out["params"] = std::move(gen.params);
  json graphs = json::array();
  json top = json::object();
  top["name"] = entry.name;
  top["side_effect"] = "{ memory io load }";
  top["location"] = std::string(kFile) + ":380~420, 4~20/    def construct(self, x):/";
  top["nodes"] = std::move(entry.nodes);
  graphs.push_back(std::move(top));
  for (auto& g : subgraphs) graphs.push_back(std::move(g));
  out["graphs"] = std::move(graphs);
  if (gen.nodes != total)
    spec.fail("internal error: generated " + std::to_string(gen.nodes) + " nodes instead of " +
              std::to_string(total));
  return out;
}

}  // namespace msdt::fixture
