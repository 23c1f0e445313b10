//! Which shape rule each operator of the default ONNX domain uses.

use super::node::{unsupported, Node, Out};
use super::{elementwise as ew, gen, linalg, misc, nn, reduce, shape};

pub fn infer(n: &Node) -> Out {
    match n.op {
        // Same shape and type as input 0 (elements fold for the arithmetic ones).
        "Identity"
        | "Abs"
        | "Neg"
        | "Relu"
        | "Sigmoid"
        | "Tanh"
        | "Exp"
        | "Log"
        | "Sqrt"
        | "Reciprocal"
        | "Floor"
        | "Ceil"
        | "Round"
        | "Sign"
        | "Erf"
        | "Sin"
        | "Cos"
        | "Tan"
        | "Asin"
        | "Acos"
        | "Atan"
        | "Sinh"
        | "Cosh"
        | "Asinh"
        | "Acosh"
        | "Atanh"
        | "Softplus"
        | "Softsign"
        | "Elu"
        | "Selu"
        | "LeakyRelu"
        | "HardSigmoid"
        | "HardSwish"
        | "ThresholdedRelu"
        | "Celu"
        | "Gelu"
        | "Mish"
        | "Swish"
        | "Not"
        | "BitwiseNot"
        | "Clip"
        | "Shrink"
        | "Softmax"
        | "LogSoftmax"
        | "Hardmax"
        | "LRN"
        | "InstanceNormalization"
        | "LpNormalization"
        | "MeanVarianceNormalization"
        | "GroupNormalization"
        | "RMSNormalization"
        | "CumSum"
        | "Trilu"
        | "ReverseSequence"
        | "ScatterND"
        | "ScatterElements"
        | "Scatter"
        | "CumProd"
        | "RotaryEmbedding"
        | "TensorScatter" => ew::same(n),
        "IsNaN" | "IsInf" => ew::same_bool(n),
        "Dropout" => ew::dropout(n),
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "BitShift" | "BitwiseAnd" | "BitwiseOr"
        | "BitwiseXor" | "And" | "Or" | "Xor" | "Equal" | "Less" | "LessOrEqual" | "Greater"
        | "GreaterOrEqual" | "Sum" | "Mean" | "Max" | "Min" => ew::broadcasting(n),
        "Where" => ew::where_(n),
        "PRelu" => ew::prelu(n),
        "Cast" => ew::cast(n),
        "CastLike" => ew::cast_like(n),
        "QuantizeLinear" => ew::quantize(n),
        "DequantizeLinear" => ew::dequantize(n),
        "DynamicQuantizeLinear" => ew::dynamic_quantize(n),

        "Conv" => nn::conv(n, nn::Kind::Conv),
        "ConvInteger" => nn::conv(n, nn::Kind::ConvInteger),
        "QLinearConv" => nn::conv(n, nn::Kind::QLinearConv),
        "MaxPool" | "AveragePool" | "LpPool" => nn::conv(n, nn::Kind::Pool),
        "ConvTranspose" => nn::conv_transpose(n),
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => nn::global_pool(n),
        "BatchNormalization" => nn::batch_norm(n),
        "LayerNormalization" => nn::layer_norm(n),

        "MatMul" => linalg::matmul(n),
        "MatMulInteger" => linalg::matmul_integer(n),
        "QLinearMatMul" => linalg::qlinear_matmul(n),
        "Gemm" => linalg::gemm(n),
        "Einsum" => linalg::einsum(n),

        "Reshape" => shape::reshape(n),
        "Flatten" => shape::flatten(n),
        "Squeeze" => shape::squeeze(n),
        "Unsqueeze" => shape::unsqueeze(n),
        "Transpose" => shape::transpose(n),
        "Concat" => shape::concat(n),
        "Split" => shape::split(n),
        "Slice" => shape::slice(n),
        "Gather" => shape::gather(n),
        "GatherElements" => shape::gather_elements(n),
        "GatherND" => shape::gather_nd(n),
        "Expand" => shape::expand(n),
        "Tile" => shape::tile(n),
        "Pad" => shape::pad(n),
        "DepthToSpace" => shape::depth_space(n, true),
        "SpaceToDepth" => shape::depth_space(n, false),
        "Shape" => shape::shape(n),
        "Size" => shape::size(n),

        "ConstantOfShape" => gen::constant_of_shape(n),
        "Range" => gen::range(n),
        "RandomNormal" | "RandomUniform" => gen::random(n),
        "EyeLike" | "RandomNormalLike" | "RandomUniformLike" | "Bernoulli" => gen::like(n),
        "Multinomial" => gen::multinomial(n),
        "OneHot" => gen::one_hot(n),

        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => reduce::reduce(n),
        "ArgMax" | "ArgMin" => reduce::arg(n),
        "TopK" => reduce::top_k(n),

        "Resize" => misc::resize(n),
        "Upsample" => misc::upsample(n),
        "RNN" | "GRU" | "LSTM" => misc::rnn(n),
        "Attention" => misc::attention(n),
        "NegativeLogLikelihoodLoss" | "SoftmaxCrossEntropyLoss" => misc::loss(n),
        "GridSample" => misc::grid_sample(n),
        "Det" => misc::det(n),

        "NonZero" | "Unique" | "NonMaxSuppression" | "Compress" | "StringSplit" => {
            unsupported("its output size depends on the input data")
        }
        "SequenceEmpty" | "SequenceConstruct" | "SequenceInsert" | "SequenceErase"
        | "SplitToSequence" | "Optional" => {
            unsupported("its output is a sequence or an optional, whose size peakorder cannot know")
        }
        "If" | "Loop" | "Scan" => unsupported("the shapes its bodies compute are not inferred"),
        _ => unsupported("peakorder has no shape rule for this op"),
    }
}
