declare const packedRanks: string;
export default packedRanks;
