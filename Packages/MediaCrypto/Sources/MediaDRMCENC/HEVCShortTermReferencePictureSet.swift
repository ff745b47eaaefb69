extension HEVC {
    /// One `st_ref_pic_set()` (§7.3.7, semantics §7.4.8): the pictures before (S0) and after (S1)
    /// the current one, by their picture order count difference, and which of them the current
    /// picture uses. A set predicted from an earlier one (`inter_ref_pic_set_prediction_flag`) is
    /// derived here with equations 7-61 and 7-62, since later sets and `NumPicTotalCurr` need the
    /// derived lists, not the coded flags.
    public struct ShortTermReferencePictureSet: Sendable, Equatable {
        /// `DeltaPocS0` (negative, decreasing) and `DeltaPocS1` (positive, increasing).
        public var deltaPictureOrderCountS0: [Int] = []
        public var deltaPictureOrderCountS1: [Int] = []
        /// `UsedByCurrPicS0`, `UsedByCurrPicS1`.
        public var usedByCurrentPictureS0: [Bool] = []
        public var usedByCurrentPictureS1: [Bool] = []

        /// `num_short_term_ref_pic_sets` is at most 64 (§7.4.3.2.1).
        public static let maximumCount = 64
        /// A set lists at most `sps_max_dec_pic_buffering_minus1` (under 16) pictures each way.
        static let maximumPictures = 16

        /// `NumDeltaPocs`.
        public var deltaCount: Int { deltaPictureOrderCountS0.count + deltaPictureOrderCountS1.count }

        /// How many of its pictures the current picture references (its share of `NumPicTotalCurr`).
        public var usedByCurrentPictureCount: Int {
            usedByCurrentPictureS0.filter { $0 }.count + usedByCurrentPictureS1.filter { $0 }.count
        }

        public init() {}

        /// Reads `st_ref_pic_set(index)`: `index` below `setCount` in an SPS, equal to it in a slice
        /// segment header; `earlier` are the SPS's sets, which a predicted set refers back to.
        init(_ reader: inout H264.BitReader, index: Int, setCount: Int, earlier: [ShortTermReferencePictureSet]) throws(CENCError) {
            let predicted = index != 0 ? try reader.readFlag() : false
            guard predicted else {
                try readExplicit(&reader)
                return
            }
            var deltaIndex = 1
            if index == setCount { deltaIndex = try reader.readUE("delta_idx_minus1", in: 0 ... max(0, index - 1)) + 1 }
            let referenceIndex = index - deltaIndex
            guard earlier.indices.contains(referenceIndex) else {
                throw CENCError(.invalidValue, "st_ref_pic_set \(index) predicts from set \(referenceIndex), which was not given")
            }
            let reference = earlier[referenceIndex]
            let sign = try reader.readFlag()
            let magnitude = try reader.readUE("abs_delta_rps_minus1", in: 0 ... (1 << 15) - 1) + 1
            let deltaRPS = sign ? -magnitude : magnitude
            var used: [Bool] = [], useDelta: [Bool] = []
            for _ in 0 ... reference.deltaCount {
                let isUsed = try reader.readFlag()
                used.append(isUsed)
                useDelta.append(isUsed ? true : try reader.readFlag())
            }
            derive(from: reference, deltaRPS: deltaRPS, used: used, useDelta: useDelta)
            guard deltaPictureOrderCountS0.count <= Self.maximumPictures, deltaPictureOrderCountS1.count <= Self.maximumPictures else {
                throw CENCError(.invalidValue, "st_ref_pic_set \(index) lists more than \(Self.maximumPictures) pictures one way")
            }
        }

        private mutating func readExplicit(_ reader: inout H264.BitReader) throws(CENCError) {
            let negative = try reader.readUE("num_negative_pics", in: 0 ... Self.maximumPictures)
            let positive = try reader.readUE("num_positive_pics", in: 0 ... Self.maximumPictures)
            var poc = 0
            for _ in 0 ..< negative {
                poc -= try reader.readUE("delta_poc_s0_minus1", in: 0 ... (1 << 15) - 1) + 1
                deltaPictureOrderCountS0.append(poc)
                usedByCurrentPictureS0.append(try reader.readFlag())
            }
            poc = 0
            for _ in 0 ..< positive {
                poc += try reader.readUE("delta_poc_s1_minus1", in: 0 ... (1 << 15) - 1) + 1
                deltaPictureOrderCountS1.append(poc)
                usedByCurrentPictureS1.append(try reader.readFlag())
            }
        }

        /// Equations 7-61 (S0) and 7-62 (S1). `used` and `useDelta` have `reference.deltaCount + 1`
        /// entries: one per reference picture (S0 first, then S1), the last for the reference set's
        /// own picture at `deltaRPS`.
        private mutating func derive(from reference: ShortTermReferencePictureSet, deltaRPS: Int, used: [Bool], useDelta: [Bool]) {
            let negatives = reference.deltaPictureOrderCountS0.count
            let own = reference.deltaCount
            func add(_ poc: Int, _ flag: Int) {
                if poc < 0 {
                    deltaPictureOrderCountS0.append(poc)
                    usedByCurrentPictureS0.append(used[flag])
                } else {
                    deltaPictureOrderCountS1.append(poc)
                    usedByCurrentPictureS1.append(used[flag])
                }
            }
            for j in reference.deltaPictureOrderCountS1.indices.reversed() {
                let poc = reference.deltaPictureOrderCountS1[j] + deltaRPS
                if poc < 0, useDelta[negatives + j] { add(poc, negatives + j) }
            }
            if deltaRPS < 0, useDelta[own] { add(deltaRPS, own) }
            for j in reference.deltaPictureOrderCountS0.indices {
                let poc = reference.deltaPictureOrderCountS0[j] + deltaRPS
                if poc < 0, useDelta[j] { add(poc, j) }
            }
            for j in reference.deltaPictureOrderCountS0.indices.reversed() {
                let poc = reference.deltaPictureOrderCountS0[j] + deltaRPS
                if poc > 0, useDelta[j] { add(poc, j) }
            }
            if deltaRPS > 0, useDelta[own] { add(deltaRPS, own) }
            for j in reference.deltaPictureOrderCountS1.indices {
                let poc = reference.deltaPictureOrderCountS1[j] + deltaRPS
                if poc > 0, useDelta[negatives + j] { add(poc, negatives + j) }
            }
        }
    }

    /// `scaling_list_data()` (§7.3.4), in an SPS or a PPS: read past, since nothing after it
    /// depends on its values, only on its length.
    enum ScalingListData {
        static func skip(_ reader: inout H264.BitReader) throws(CENCError) {
            for sizeID in 0 ..< 4 {
                for _ in stride(from: 0, to: 6, by: sizeID == 3 ? 3 : 1) {
                    if try !reader.readFlag() {  // scaling_list_pred_mode_flag 0: copied from another matrix
                        _ = try reader.readUE("scaling_list_pred_matrix_id_delta", in: 0 ... 5)
                        continue
                    }
                    if sizeID > 1 { _ = try reader.readSE("scaling_list_dc_coef_minus8", in: -7 ... 247) }
                    for _ in 0 ..< min(64, 1 << (4 + (sizeID << 1))) {
                        _ = try reader.readSE("scaling_list_delta_coef", in: -128 ... 127)
                    }
                }
            }
        }
    }
}
