/*
 * pmucal test fixture: SLIT for srat-3node. Node 2 is a memory-only (CPU-less)
 * node, further from node 0 than from node 1; the matrix is deliberately asymmetric
 * in one pair (0->2 = 28, 2->0 = 30) to catch a transposed reader.
 * Format: [ByteLength]  FieldName : HexFieldValue
 */
[0004]                          Signature : "SLIT"    [System Locality Information Table]
[0004]                       Table Length : 00000000
[0001]                           Revision : 01
[0001]                           Checksum : 00
[0006]                             Oem ID : "PMUCAL"
[0008]                       Oem Table ID : "SLIT3NOD"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0008]                         Localities : 0000000000000003
[0003]                       Locality   0 : 0A 15 1C
[0003]                       Locality   1 : 15 0A 18
[0003]                       Locality   2 : 1E 18 0A
