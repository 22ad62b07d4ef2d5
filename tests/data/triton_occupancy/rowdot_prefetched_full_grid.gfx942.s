	.amdgcn_target "amdgpu9.42-amd-amdhsa-unknown-gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	rowdot_prefetch_kernel          ; -- Begin function rowdot_prefetch_kernel
	.p2align	8
	.type	rowdot_prefetch_kernel,@function
rowdot_prefetch_kernel:                 ; @rowdot_prefetch_kernel
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.9:
	.file	1 "/work/verdicts/tests/data/triton_occupancy" "rowdot_prefetched.py"
	.loc	1 13 0 prologue_end             ; rowdot_prefetched.py:13:0
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dwordx8 s[4:11], s[0:1], 0x8
	s_load_dwordx2 s[12:13], s[0:1], 0x28
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.10:
.LBB0_0:
	.cfi_escape 0x0f, 0x04, 0x30, 0x36, 0xe9, 0x02 ; CFA is 0 in private_wave aspace
	.cfi_undefined 16
.Ltmp1:
	.loc	1 27 5 is_stmt 1                ; rowdot_prefetched.py:27:5
	v_readfirstlane_b32 s10, v0
	s_mov_b64 s[12:13], s[2:3]
	.loc	1 14 36                         ; rowdot_prefetched.py:14:36
	v_and_b32_e32 v1, 63, v0
	s_and_b32 s2, s10, 0xc0
	v_or_b32_e32 v89, s2, v1
	v_lshrrev_b32_e32 v2, 5, v89
	.loc	1 14 12 is_stmt 0               ; rowdot_prefetched.py:14:12
	s_lshl_b32 s9, s14, 6
	.loc	1 14 36                         ; rowdot_prefetched.py:14:36
	v_or_b32_e32 v3, 8, v2
	.loc	1 16 42 is_stmt 1               ; rowdot_prefetched.py:16:42
	v_and_b32_e32 v34, 31, v0
	.loc	1 14 36                         ; rowdot_prefetched.py:14:36
	v_or_b32_e32 v4, 16, v2
	v_or_b32_e32 v5, 24, v2
	v_or_b32_e32 v6, 32, v2
	v_or_b32_e32 v7, 40, v2
	v_or_b32_e32 v8, 48, v2
	v_or_b32_e32 v9, 56, v2
	.loc	1 16 14                         ; rowdot_prefetched.py:16:14
	s_mul_i32 s2, s8, s9
	.loc	1 16 42 is_stmt 0               ; rowdot_prefetched.py:16:42
	v_lshlrev_b32_e32 v10, 3, v34
	.loc	1 16 14                         ; rowdot_prefetched.py:16:14
	v_mul_lo_u32 v2, v2, s8
	v_mul_lo_u32 v3, v3, s8
	s_mov_b64 s[0:1], s[6:7]
	v_mul_lo_u32 v4, v4, s8
	v_mul_lo_u32 v5, v5, s8
	v_add3_u32 v90, v2, v10, s2
	v_add3_u32 v91, v3, v10, s2
	.loc	1 18 9 is_stmt 1                ; rowdot_prefetched.py:18:9
	s_mov_b32 s7, 0x27000
	s_mov_b32 s6, 0x7ffffffe
	.loc	1 16 14                         ; rowdot_prefetched.py:16:14
	v_mul_lo_u32 v6, v6, s8
	v_mul_lo_u32 v7, v7, s8
	v_mul_lo_u32 v8, v8, s8
	v_add3_u32 v92, v4, v10, s2
	v_add3_u32 v93, v5, v10, s2
	.loc	1 18 9                          ; rowdot_prefetched.py:18:9
	s_and_b32 s13, s13, 0xffff
	s_mov_b32 s14, s6
	s_mov_b32 s15, s7
	v_lshlrev_b32_e32 v2, 1, v90
	v_lshlrev_b32_e32 v3, 1, v91
	.loc	1 16 14                         ; rowdot_prefetched.py:16:14
	v_mul_lo_u32 v9, v9, s8
	v_add3_u32 v94, v6, v10, s2
	v_add3_u32 v95, v7, v10, s2
	v_add3_u32 v96, v8, v10, s2
	.loc	1 18 9                          ; rowdot_prefetched.py:18:9
	buffer_load_dwordx4 v[30:33], v2, s[12:15], 0 offen
	buffer_load_dwordx4 v[26:29], v3, s[12:15], 0 offen
	v_lshlrev_b32_e32 v2, 1, v92
	v_lshlrev_b32_e32 v3, 1, v93
	.loc	1 16 14                         ; rowdot_prefetched.py:16:14
	v_add3_u32 v97, v9, v10, s2
	.loc	1 18 9                          ; rowdot_prefetched.py:18:9
	buffer_load_dwordx4 v[22:25], v2, s[12:15], 0 offen
	buffer_load_dwordx4 v[18:21], v3, s[12:15], 0 offen
	v_lshlrev_b32_e32 v2, 1, v94
	v_lshlrev_b32_e32 v3, 1, v95
	v_lshlrev_b32_e32 v35, 1, v96
	buffer_load_dwordx4 v[14:17], v2, s[12:15], 0 offen
	buffer_load_dwordx4 v[10:13], v3, s[12:15], 0 offen
	v_lshlrev_b32_e32 v36, 1, v97
	buffer_load_dwordx4 v[6:9], v35, s[12:15], 0 offen
	buffer_load_dwordx4 v[2:5], v36, s[12:15], 0 offen
	.loc	1 19 9                          ; rowdot_prefetched.py:19:9
	s_and_b32 s5, s5, 0xffff
	v_and_b32_e32 v37, 7, v0
	v_lshrrev_b32_e32 v77, 1, v89
	v_lshlrev_b32_e32 v36, 1, v89
	.loc	1 20 5                          ; rowdot_prefetched.py:20:5
	s_cmpk_gt_i32 s8, 0x100
	v_lshlrev_b32_e32 v76, 4, v37
	v_and_b32_e32 v35, 0x7c, v77
	v_lshlrev_b32_e32 v79, 2, v34
	v_lshlrev_b32_e32 v34, 2, v1
	s_cbranch_scc1 .LBB0_2
; %bb.1:                                ; %.._crit_edge_crit_edge
	.loc	1 26 19                         ; rowdot_prefetched.py:26:19
	v_xor_b32_e32 v80, 0x90, v79
	v_xor_b32_e32 v81, 0x120, v79
	v_xor_b32_e32 v82, 0x1b0, v79
	v_xor_b32_e32 v83, 0x240, v79
	v_xor_b32_e32 v84, 0x2d0, v79
	v_xor_b32_e32 v85, 0x360, v79
	v_xor_b32_e32 v86, 0x3f0, v79
.Ltmp2:
	.file	2 "/work/main/.venv/lib/python3.11/site-packages/triton/language" "standard.py"
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_xor_b32_e32 v78, 64, v34
	s_mov_b64 s[2:3], 0
	s_branch .LBB0_3
.Ltmp3:
.LBB0_2:
	.loc	2 0 12 is_stmt 0                ; standard.py:0:12
	s_mov_b64 s[2:3], -1
                                        ; implicit-def: $vgpr80
                                        ; implicit-def: $vgpr81
                                        ; implicit-def: $vgpr82
                                        ; implicit-def: $vgpr83
                                        ; implicit-def: $vgpr84
                                        ; implicit-def: $vgpr85
                                        ; implicit-def: $vgpr86
                                        ; implicit-def: $vgpr78
.LBB0_3:                                ; %Flow84
	buffer_load_ushort v107, v36, s[4:7], 0 offen
	s_and_b64 s[2:3], s[2:3], exec
	s_cselect_b32 s2, 1, 0
	v_lshlrev_b32_e32 v87, 7, v37
	s_cmp_lg_u32 s2, 1
	v_xor_b32_e32 v88, v35, v76
	s_cbranch_scc1 .LBB0_7
; %bb.4:                                ; %.lr.ph
	v_add_u32_e32 v35, 0, v87
	v_xor_b32_e32 v36, 16, v79
	v_xor_b32_e32 v37, 32, v79
	v_xor_b32_e32 v38, 48, v79
	v_xor_b32_e32 v39, 64, v79
	v_xor_b32_e32 v40, 0x50, v79
	v_xor_b32_e32 v41, 0x60, v79
	v_xor_b32_e32 v42, 0x70, v79
	v_xor_b32_e32 v78, 64, v34
	v_mov_b32_e32 v34, 0
	v_xor_b32_e32 v80, 0x90, v79
	v_xor_b32_e32 v81, 0x120, v79
	v_xor_b32_e32 v82, 0x1b0, v79
	v_xor_b32_e32 v83, 0x240, v79
	v_xor_b32_e32 v84, 0x2d0, v79
	v_xor_b32_e32 v85, 0x360, v79
	v_xor_b32_e32 v86, 0x3f0, v79
	s_movk_i32 s2, 0x100
	s_mov_b32 s14, s6
	s_mov_b32 s15, s7
	v_add_u32_e32 v98, v35, v88
	v_add_u32_e32 v99, 0, v36
	v_add_u32_e32 v100, 0, v37
	v_add_u32_e32 v101, 0, v38
	v_add_u32_e32 v102, 0, v39
	v_add_u32_e32 v103, 0, v40
	v_add_u32_e32 v104, 0, v41
	v_add_u32_e32 v105, 0, v42
	v_add_u32_e32 v106, 0, v79
	v_mov_b32_e32 v35, v34
	v_mov_b32_e32 v36, v34
	v_mov_b32_e32 v37, v34
	v_mov_b32_e32 v40, v34
	v_mov_b32_e32 v41, v34
	v_mov_b32_e32 v38, v34
	v_mov_b32_e32 v39, v34
.LBB0_5:                                ; =>This Inner Loop Header: Depth=1
	.loc	1 23 23 is_stmt 1               ; rowdot_prefetched.py:23:23
	s_waitcnt vmcnt(8)
	v_cvt_f32_f16_sdwa v43, v30 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v42, v30
	v_cvt_f32_f16_sdwa v45, v31 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v44, v31
	v_cvt_f32_f16_sdwa v31, v32 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v30, v32
	v_cvt_f32_f16_sdwa v47, v33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v46, v33
	s_waitcnt vmcnt(7)
	v_cvt_f32_f16_sdwa v33, v26 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v32, v26
	v_cvt_f32_f16_sdwa v49, v27 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v48, v27
	v_cvt_f32_f16_sdwa v27, v28 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v26, v28
	v_cvt_f32_f16_sdwa v51, v29 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v50, v29
	s_waitcnt vmcnt(6)
	v_cvt_f32_f16_sdwa v29, v22 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v28, v22
	v_cvt_f32_f16_sdwa v53, v23 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v52, v23
	v_cvt_f32_f16_sdwa v23, v24 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v22, v24
	v_cvt_f32_f16_sdwa v55, v25 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v54, v25
	s_waitcnt vmcnt(5)
	v_cvt_f32_f16_sdwa v25, v18 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v24, v18
	v_cvt_f32_f16_sdwa v57, v19 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v56, v19
	v_cvt_f32_f16_sdwa v19, v20 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v18, v20
	v_cvt_f32_f16_sdwa v59, v21 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v58, v21
	s_waitcnt vmcnt(4)
	v_cvt_f32_f16_sdwa v21, v14 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v20, v14
	v_cvt_f32_f16_sdwa v61, v15 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v60, v15
	v_cvt_f32_f16_sdwa v15, v16 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v14, v16
	v_cvt_f32_f16_sdwa v63, v17 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v62, v17
	s_waitcnt vmcnt(3)
	v_cvt_f32_f16_sdwa v17, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v16, v10
	v_cvt_f32_f16_sdwa v65, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v64, v11
	v_cvt_f32_f16_sdwa v11, v12 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v10, v12
	v_cvt_f32_f16_sdwa v67, v13 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v66, v13
	s_waitcnt vmcnt(2)
	v_cvt_f32_f16_sdwa v13, v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v12, v6
	v_cvt_f32_f16_sdwa v69, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v68, v7
	v_cvt_f32_f16_sdwa v7, v8 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v6, v8
	v_cvt_f32_f16_sdwa v71, v9 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v70, v9
	s_waitcnt vmcnt(1)
	v_cvt_f32_f16_sdwa v9, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v8, v2
	v_cvt_f32_f16_sdwa v73, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v72, v3
	v_cvt_f32_f16_sdwa v3, v4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v2, v4
	.loc	1 21 18                         ; rowdot_prefetched.py:21:18
	v_add_lshl_u32 v4, s2, v90, 1
	v_add_lshl_u32 v108, s2, v92, 1
	v_add_lshl_u32 v109, s2, v93, 1
	v_add_lshl_u32 v110, s2, v94, 1
	v_add_lshl_u32 v111, s2, v95, 1
	v_add_lshl_u32 v112, s2, v96, 1
	.loc	1 22 26                         ; rowdot_prefetched.py:22:26
	v_or_b32_e32 v141, s2, v89
	.loc	1 23 23                         ; rowdot_prefetched.py:23:23
	v_cvt_f32_f16_sdwa v75, v5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v74, v5
	.loc	1 21 18                         ; rowdot_prefetched.py:21:18
	v_add_lshl_u32 v5, s2, v91, 1
	v_add_lshl_u32 v140, s2, v97, 1
	buffer_load_dwordx4 v[136:139], v4, s[12:15], 0 offen
	buffer_load_dwordx4 v[132:135], v5, s[12:15], 0 offen
	buffer_load_dwordx4 v[124:127], v108, s[12:15], 0 offen
                                        ; kill: killed $vgpr4
                                        ; kill: killed $vgpr108
                                        ; kill: killed $vgpr5
	buffer_load_dwordx4 v[128:131], v109, s[12:15], 0 offen
	buffer_load_dwordx4 v[120:123], v110, s[12:15], 0 offen
	buffer_load_dwordx4 v[116:119], v111, s[12:15], 0 offen
	s_nop 0
	buffer_load_dwordx4 v[112:115], v112, s[12:15], 0 offen
	s_nop 0
	buffer_load_dwordx4 v[108:111], v140, s[12:15], 0 offen
	.loc	1 22 18                         ; rowdot_prefetched.py:22:18
	v_lshlrev_b32_e32 v4, 1, v141
	buffer_load_ushort v140, v4, s[4:7], 0 offen
	.loc	1 23 42                         ; rowdot_prefetched.py:23:42
	s_waitcnt vmcnt(9)
	v_cvt_f32_f16_e32 v107, v107
	.loc	1 23 23 is_stmt 0               ; rowdot_prefetched.py:23:23
	s_barrier
	ds_write_b32 v98, v107
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v4, v100 offset:256
	ds_read_b32 v5, v101 offset:384
	ds_read_b32 v142, v102 offset:512
	ds_read_b32 v143, v103 offset:640
	ds_read_b32 v144, v104 offset:768
	ds_read_b32 v145, v105 offset:896
	ds_read_b32 v146, v106
	ds_read_b32 v147, v99 offset:128
	s_waitcnt lgkmcnt(6)
	v_pk_mul_f32 v[44:45], v[4:5], v[44:45]
	v_pk_mul_f32 v[48:49], v[4:5], v[48:49]
	v_pk_mul_f32 v[52:53], v[4:5], v[52:53]
	v_pk_mul_f32 v[56:57], v[4:5], v[56:57]
	v_pk_mul_f32 v[60:61], v[4:5], v[60:61]
	v_pk_mul_f32 v[64:65], v[4:5], v[64:65]
	v_pk_mul_f32 v[68:69], v[4:5], v[68:69]
	v_pk_mul_f32 v[4:5], v[4:5], v[72:73]
	s_waitcnt lgkmcnt(2)
	v_pk_mul_f32 v[46:47], v[144:145], v[46:47]
	v_pk_mul_f32 v[50:51], v[144:145], v[50:51]
	v_pk_mul_f32 v[54:55], v[144:145], v[54:55]
	v_pk_mul_f32 v[58:59], v[144:145], v[58:59]
	v_pk_mul_f32 v[62:63], v[144:145], v[62:63]
	v_pk_mul_f32 v[66:67], v[144:145], v[66:67]
	v_pk_mul_f32 v[70:71], v[144:145], v[70:71]
	v_pk_mul_f32 v[72:73], v[144:145], v[74:75]
.Ltmp4:
	.loc	2 314 12 is_stmt 1              ; standard.py:314:12 @[ rowdot_prefetched.py:23:16 ]
	s_waitcnt lgkmcnt(0)
	v_pk_fma_f32 v[42:43], v[146:147], v[42:43], v[44:45]
	v_pk_fma_f32 v[30:31], v[142:143], v[30:31], v[46:47]
	v_pk_fma_f32 v[32:33], v[146:147], v[32:33], v[48:49]
	v_pk_fma_f32 v[26:27], v[142:143], v[26:27], v[50:51]
	v_pk_fma_f32 v[28:29], v[146:147], v[28:29], v[52:53]
	v_pk_fma_f32 v[22:23], v[142:143], v[22:23], v[54:55]
	v_pk_fma_f32 v[24:25], v[146:147], v[24:25], v[56:57]
	v_pk_fma_f32 v[18:19], v[142:143], v[18:19], v[58:59]
	v_pk_fma_f32 v[20:21], v[146:147], v[20:21], v[60:61]
	v_pk_fma_f32 v[14:15], v[142:143], v[14:15], v[62:63]
	v_pk_fma_f32 v[16:17], v[146:147], v[16:17], v[64:65]
	v_pk_fma_f32 v[10:11], v[142:143], v[10:11], v[66:67]
	v_pk_fma_f32 v[12:13], v[146:147], v[12:13], v[68:69]
	v_pk_fma_f32 v[6:7], v[142:143], v[6:7], v[70:71]
	v_pk_fma_f32 v[4:5], v[146:147], v[8:9], v[4:5]
	v_pk_fma_f32 v[2:3], v[142:143], v[2:3], v[72:73]
	v_pk_add_f32 v[8:9], v[42:43], v[30:31]
	v_pk_add_f32 v[26:27], v[32:33], v[26:27]
	v_pk_add_f32 v[22:23], v[28:29], v[22:23]
	v_pk_add_f32 v[18:19], v[24:25], v[18:19]
	v_pk_add_f32 v[14:15], v[20:21], v[14:15]
	v_pk_add_f32 v[10:11], v[16:17], v[10:11]
	v_pk_add_f32 v[6:7], v[12:13], v[6:7]
	v_pk_add_f32 v[2:3], v[4:5], v[2:3]
.Ltmp5:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:23:16 ] ]
	v_mov_b32_e32 v4, v8
	v_mov_b32_e32 v5, v26
	v_mov_b32_e32 v26, v9
	v_mov_b32_e32 v8, v22
	v_mov_b32_e32 v9, v18
	v_mov_b32_e32 v18, v23
	v_mov_b32_e32 v12, v14
	v_mov_b32_e32 v13, v10
	v_mov_b32_e32 v10, v15
	v_mov_b32_e32 v14, v6
	v_mov_b32_e32 v15, v2
	v_mov_b32_e32 v2, v7
	v_pk_add_f32 v[4:5], v[4:5], v[26:27]
	v_pk_add_f32 v[6:7], v[8:9], v[18:19]
	v_pk_add_f32 v[8:9], v[12:13], v[10:11]
	v_pk_add_f32 v[2:3], v[14:15], v[2:3]
.Ltmp6:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:23:16 ]
	ds_bpermute_b32 v10, v78, v4
	ds_bpermute_b32 v11, v78, v5
	ds_bpermute_b32 v12, v78, v6
	ds_bpermute_b32 v13, v78, v7
	ds_bpermute_b32 v14, v78, v8
	ds_bpermute_b32 v15, v78, v9
	ds_bpermute_b32 v16, v78, v2
	ds_bpermute_b32 v17, v78, v3
.Ltmp7:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:23:16 ] ]
	s_waitcnt lgkmcnt(6)
	v_pk_add_f32 v[4:5], v[4:5], v[10:11]
	s_waitcnt lgkmcnt(4)
	v_pk_add_f32 v[6:7], v[6:7], v[12:13]
	s_waitcnt lgkmcnt(2)
	v_pk_add_f32 v[8:9], v[8:9], v[14:15]
.Ltmp8:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:23:16 ]
	v_mov_b32_dpp v10, v4 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp9:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:23:16 ] ]
	s_waitcnt lgkmcnt(0)
	v_pk_add_f32 v[2:3], v[2:3], v[16:17]
.Ltmp10:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:23:16 ]
	v_mov_b32_dpp v11, v5 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v12, v6 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v7 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v14, v8 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v15, v9 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v16, v2 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v17, v3 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp11:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:23:16 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[10:11]
	v_pk_add_f32 v[6:7], v[6:7], v[12:13]
	v_pk_add_f32 v[8:9], v[8:9], v[14:15]
	v_pk_add_f32 v[2:3], v[2:3], v[16:17]
.Ltmp12:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:23:16 ]
	v_mov_b32_dpp v10, v4 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v5 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v12, v6 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v7 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v14, v8 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v15, v9 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v16, v2 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v17, v3 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v10, v10 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v11 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v12, v12 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v13 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v14, v14 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v15, v15 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v16, v16 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v17, v17 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp13:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:23:16 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[10:11]
	v_pk_add_f32 v[6:7], v[6:7], v[12:13]
	v_pk_add_f32 v[8:9], v[8:9], v[14:15]
	v_pk_add_f32 v[2:3], v[2:3], v[16:17]
.Ltmp14:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:23:16 ]
	v_mov_b32_dpp v10, v4 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v5 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v12, v6 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v7 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v14, v8 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v15, v9 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v16, v2 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v17, v3 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp15:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:23:16 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[10:11]
	v_pk_add_f32 v[6:7], v[6:7], v[12:13]
	v_pk_add_f32 v[8:9], v[8:9], v[14:15]
	v_pk_add_f32 v[2:3], v[2:3], v[16:17]
.Ltmp16:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:23:16 ]
	v_mov_b32_dpp v10, v4 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v5 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v12, v6 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v7 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v14, v8 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v15, v9 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v16, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v17, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp17:
	.loc	1 20 5                          ; rowdot_prefetched.py:20:5
	s_addk_i32 s2, 0x100
.Ltmp18:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:23:16 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[10:11]
	v_pk_add_f32 v[6:7], v[6:7], v[12:13]
	v_pk_add_f32 v[8:9], v[8:9], v[14:15]
	v_pk_add_f32 v[2:3], v[2:3], v[16:17]
.Ltmp19:
	.loc	1 20 5                          ; rowdot_prefetched.py:20:5
	s_cmp_lt_i32 s2, s8
	.loc	1 23 9                          ; rowdot_prefetched.py:23:9
	v_pk_add_f32 v[38:39], v[38:39], v[4:5]
	v_pk_add_f32 v[40:41], v[40:41], v[6:7]
	v_pk_add_f32 v[36:37], v[36:37], v[8:9]
	v_pk_add_f32 v[34:35], v[34:35], v[2:3]
	s_waitcnt vmcnt(8)
	v_mov_b32_e32 v30, v136
	v_mov_b32_e32 v31, v137
	v_mov_b32_e32 v32, v138
	v_mov_b32_e32 v33, v139
	s_waitcnt vmcnt(7)
	v_mov_b32_e32 v26, v132
	v_mov_b32_e32 v27, v133
	v_mov_b32_e32 v28, v134
	v_mov_b32_e32 v29, v135
	s_waitcnt vmcnt(6)
	v_mov_b32_e32 v22, v124
	v_mov_b32_e32 v23, v125
	v_mov_b32_e32 v24, v126
	v_mov_b32_e32 v25, v127
	s_waitcnt vmcnt(5)
	v_mov_b32_e32 v18, v128
	v_mov_b32_e32 v19, v129
	v_mov_b32_e32 v20, v130
	v_mov_b32_e32 v21, v131
	s_waitcnt vmcnt(4)
	v_mov_b32_e32 v14, v120
	v_mov_b32_e32 v15, v121
	v_mov_b32_e32 v16, v122
	v_mov_b32_e32 v17, v123
	s_waitcnt vmcnt(3)
	v_mov_b32_e32 v10, v116
	v_mov_b32_e32 v11, v117
	v_mov_b32_e32 v12, v118
	v_mov_b32_e32 v13, v119
	s_waitcnt vmcnt(2)
	v_mov_b32_e32 v6, v112
	v_mov_b32_e32 v7, v113
	v_mov_b32_e32 v8, v114
	v_mov_b32_e32 v9, v115
	s_waitcnt vmcnt(1)
	v_mov_b32_e32 v2, v108
	v_mov_b32_e32 v3, v109
	v_mov_b32_e32 v4, v110
	v_mov_b32_e32 v5, v111
	s_waitcnt vmcnt(0)
	v_mov_b32_e32 v107, v140
	.loc	1 20 5                          ; rowdot_prefetched.py:20:5
	s_cbranch_scc1 .LBB0_5
; %bb.6:                                ; %Flow
	.loc	1 0 5 is_stmt 0                 ; rowdot_prefetched.py:0:5
	v_mov_b32_e32 v30, v136
	v_mov_b32_e32 v31, v137
	v_mov_b32_e32 v32, v138
	v_mov_b32_e32 v33, v139
	v_mov_b32_e32 v26, v132
	v_mov_b32_e32 v27, v133
	v_mov_b32_e32 v28, v134
	v_mov_b32_e32 v29, v135
	v_mov_b32_e32 v22, v124
	v_mov_b32_e32 v23, v125
	v_mov_b32_e32 v24, v126
	v_mov_b32_e32 v25, v127
	v_mov_b32_e32 v18, v128
	v_mov_b32_e32 v19, v129
	v_mov_b32_e32 v20, v130
	v_mov_b32_e32 v21, v131
	v_mov_b32_e32 v14, v120
	v_mov_b32_e32 v15, v121
	v_mov_b32_e32 v16, v122
	v_mov_b32_e32 v17, v123
	v_mov_b32_e32 v10, v116
	v_mov_b32_e32 v11, v117
	v_mov_b32_e32 v12, v118
	v_mov_b32_e32 v13, v119
	v_mov_b32_e32 v6, v112
	v_mov_b32_e32 v7, v113
	v_mov_b32_e32 v8, v114
	v_mov_b32_e32 v9, v115
	v_mov_b32_e32 v2, v108
	v_mov_b32_e32 v3, v109
	v_mov_b32_e32 v4, v110
	v_mov_b32_e32 v5, v111
	v_mov_b32_e32 v107, v140
	s_branch .LBB0_8
.LBB0_7:
	v_mov_b32_e32 v39, 0
	v_mov_b32_e32 v38, v39
	v_mov_b32_e32 v41, v39
	v_mov_b32_e32 v40, v39
	v_mov_b32_e32 v37, v39
	v_mov_b32_e32 v36, v39
	v_mov_b32_e32 v35, v39
	v_mov_b32_e32 v34, v39
.LBB0_8:                                ; %Flow85
	.loc	1 26 19 is_stmt 1               ; rowdot_prefetched.py:26:19
	s_waitcnt vmcnt(8)
	v_cvt_f32_f16_sdwa v43, v30 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v42, v30
	v_cvt_f32_f16_sdwa v45, v31 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v44, v31
	v_cvt_f32_f16_sdwa v31, v32 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v30, v32
	v_cvt_f32_f16_sdwa v47, v33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v46, v33
	s_waitcnt vmcnt(7)
	v_cvt_f32_f16_sdwa v33, v26 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v32, v26
	v_cvt_f32_f16_sdwa v49, v27 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v48, v27
	v_cvt_f32_f16_sdwa v27, v28 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v26, v28
	v_cvt_f32_f16_sdwa v51, v29 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v50, v29
	s_waitcnt vmcnt(6)
	v_cvt_f32_f16_sdwa v29, v22 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v28, v22
	v_cvt_f32_f16_sdwa v53, v23 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v52, v23
	v_cvt_f32_f16_sdwa v23, v24 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v22, v24
	v_cvt_f32_f16_sdwa v55, v25 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v54, v25
	s_waitcnt vmcnt(5)
	v_cvt_f32_f16_sdwa v25, v18 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v24, v18
	v_cvt_f32_f16_sdwa v57, v19 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v56, v19
	v_cvt_f32_f16_sdwa v19, v20 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v18, v20
	v_cvt_f32_f16_sdwa v59, v21 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v58, v21
	s_waitcnt vmcnt(4)
	v_cvt_f32_f16_sdwa v21, v14 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v20, v14
	v_cvt_f32_f16_sdwa v61, v15 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v60, v15
	v_cvt_f32_f16_sdwa v15, v16 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v14, v16
	v_cvt_f32_f16_sdwa v63, v17 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v62, v17
	s_waitcnt vmcnt(3)
	v_cvt_f32_f16_sdwa v17, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v16, v10
	v_cvt_f32_f16_sdwa v65, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v64, v11
	v_cvt_f32_f16_sdwa v11, v12 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v10, v12
	v_cvt_f32_f16_sdwa v67, v13 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v66, v13
	s_waitcnt vmcnt(2)
	v_cvt_f32_f16_sdwa v13, v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v12, v6
	v_cvt_f32_f16_sdwa v69, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v68, v7
	v_cvt_f32_f16_sdwa v7, v8 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v6, v8
	v_cvt_f32_f16_sdwa v71, v9 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v70, v9
	s_waitcnt vmcnt(1)
	v_cvt_f32_f16_sdwa v9, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v8, v2
	.loc	1 26 38 is_stmt 0               ; rowdot_prefetched.py:26:38
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v2, v107
	.loc	1 26 19                         ; rowdot_prefetched.py:26:19
	v_add3_u32 v74, 0, v87, v88
	s_barrier
	ds_write_b32 v74, v2
	v_add_u32_e32 v2, 0, v79
	v_add_u32_e32 v75, 0, v80
	v_add_u32_e32 v79, 0, v81
	v_add_u32_e32 v81, 0, v82
	v_add_u32_e32 v82, 0, v83
	v_add_u32_e32 v83, 0, v84
	v_add_u32_e32 v84, 0, v85
	v_add_u32_e32 v85, 0, v86
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v74, v2
	ds_read_b32 v75, v75
	ds_read_b32 v80, v79
	ds_read_b32 v81, v81
	ds_read_b32 v82, v82
	ds_read_b32 v83, v83
	ds_read_b32 v84, v84
	ds_read_b32 v85, v85
	v_cvt_f32_f16_sdwa v73, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v72, v3
	v_cvt_f32_f16_sdwa v3, v4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v2, v4
	v_cvt_f32_f16_sdwa v87, v5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v86, v5
	s_waitcnt lgkmcnt(4)
	v_pk_mul_f32 v[4:5], v[80:81], v[44:45]
	s_waitcnt lgkmcnt(0)
	v_pk_mul_f32 v[44:45], v[84:85], v[46:47]
	v_pk_mul_f32 v[46:47], v[80:81], v[48:49]
	v_pk_mul_f32 v[48:49], v[84:85], v[50:51]
.Ltmp20:
	.loc	2 314 12 is_stmt 1              ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_fma_f32 v[4:5], v[74:75], v[42:43], v[4:5]
	v_pk_fma_f32 v[30:31], v[82:83], v[30:31], v[44:45]
.Ltmp21:
	.loc	1 26 19                         ; rowdot_prefetched.py:26:19
	v_pk_mul_f32 v[50:51], v[80:81], v[52:53]
	v_pk_mul_f32 v[52:53], v[84:85], v[54:55]
	v_pk_mul_f32 v[54:55], v[80:81], v[56:57]
	v_pk_mul_f32 v[56:57], v[84:85], v[58:59]
	v_pk_mul_f32 v[58:59], v[80:81], v[60:61]
	v_pk_mul_f32 v[60:61], v[84:85], v[62:63]
	v_pk_mul_f32 v[62:63], v[80:81], v[64:65]
	v_pk_mul_f32 v[64:65], v[84:85], v[66:67]
.Ltmp22:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_add_f32 v[4:5], v[4:5], v[30:31]
	v_pk_fma_f32 v[30:31], v[74:75], v[32:33], v[46:47]
	v_pk_fma_f32 v[26:27], v[82:83], v[26:27], v[48:49]
	v_pk_fma_f32 v[16:17], v[74:75], v[16:17], v[62:63]
	v_pk_add_f32 v[26:27], v[30:31], v[26:27]
	v_pk_fma_f32 v[10:11], v[82:83], v[10:11], v[64:65]
.Ltmp23:
	.loc	1 26 19                         ; rowdot_prefetched.py:26:19
	v_pk_mul_f32 v[66:67], v[80:81], v[68:69]
.Ltmp24:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_add_f32 v[10:11], v[16:17], v[10:11]
.Ltmp25:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_mov_b32_e32 v16, v4
	v_mov_b32_e32 v17, v26
	v_mov_b32_e32 v26, v5
	v_pk_add_f32 v[4:5], v[16:17], v[26:27]
.Ltmp26:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	ds_bpermute_b32 v16, v78, v4
	ds_bpermute_b32 v17, v78, v5
.Ltmp27:
	.loc	1 26 19                         ; rowdot_prefetched.py:26:19
	v_pk_mul_f32 v[68:69], v[84:85], v[70:71]
	v_pk_mul_f32 v[70:71], v[80:81], v[72:73]
	v_pk_mul_f32 v[72:73], v[84:85], v[86:87]
.Ltmp28:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_fma_f32 v[8:9], v[74:75], v[8:9], v[70:71]
	v_pk_fma_f32 v[2:3], v[82:83], v[2:3], v[72:73]
	v_pk_fma_f32 v[28:29], v[74:75], v[28:29], v[50:51]
	v_pk_add_f32 v[8:9], v[8:9], v[2:3]
.Ltmp29:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	s_waitcnt lgkmcnt(0)
	v_pk_add_f32 v[2:3], v[4:5], v[16:17]
.Ltmp30:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_fma_f32 v[22:23], v[82:83], v[22:23], v[52:53]
	v_pk_fma_f32 v[24:25], v[74:75], v[24:25], v[54:55]
	v_mov_b32_dpp v4, v2 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v5, v3 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp31:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[2:3], v[2:3], v[4:5]
.Ltmp32:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_fma_f32 v[18:19], v[82:83], v[18:19], v[56:57]
	v_pk_add_f32 v[22:23], v[28:29], v[22:23]
	v_mov_b32_dpp v4, v2 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v5, v3 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_pk_add_f32 v[18:19], v[24:25], v[18:19]
	v_mov_b32_dpp v4, v4 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v5, v5 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp33:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[2:3], v[2:3], v[4:5]
.Ltmp34:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_fma_f32 v[12:13], v[74:75], v[12:13], v[66:67]
	v_pk_fma_f32 v[6:7], v[82:83], v[6:7], v[68:69]
	v_mov_b32_dpp v4, v2 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v5, v3 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp35:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[2:3], v[2:3], v[4:5]
	v_mov_b32_e32 v4, v22
	v_mov_b32_e32 v5, v18
	v_mov_b32_e32 v18, v23
	v_pk_add_f32 v[4:5], v[4:5], v[18:19]
.Ltmp36:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_pk_add_f32 v[6:7], v[12:13], v[6:7]
	ds_bpermute_b32 v12, v78, v4
	ds_bpermute_b32 v13, v78, v5
	v_pk_fma_f32 v[20:21], v[74:75], v[20:21], v[58:59]
	v_pk_fma_f32 v[14:15], v[82:83], v[14:15], v[60:61]
	v_mov_b32_dpp v16, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_pk_add_f32 v[14:15], v[20:21], v[14:15]
.Ltmp37:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	s_waitcnt lgkmcnt(0)
	v_pk_add_f32 v[4:5], v[4:5], v[12:13]
.Ltmp38:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_mov_b32_dpp v17, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp39:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[2:3], v[2:3], v[16:17]
.Ltmp40:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_mov_b32_dpp v12, v4 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v5 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp41:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[12:13]
.Ltmp42:
	.loc	1 26 5                          ; rowdot_prefetched.py:26:5
	v_pk_add_f32 v[2:3], v[38:39], v[2:3]
.Ltmp43:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	s_nop 0
	v_mov_b32_dpp v12, v4 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v5 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp44:
	.loc	1 27 5                          ; rowdot_prefetched.py:27:5
	s_barrier
.Ltmp45:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_mov_b32_dpp v12, v12 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v13 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp46:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[12:13]
	s_lshr_b32 s4, s10, 6
.Ltmp47:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	s_nop 0
	v_mov_b32_dpp v12, v4 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v5 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp48:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[12:13]
	v_mov_b32_e32 v12, v14
	v_mov_b32_e32 v13, v10
	v_mov_b32_e32 v10, v15
	v_pk_add_f32 v[10:11], v[12:13], v[10:11]
.Ltmp49:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	ds_bpermute_b32 v12, v78, v10
	ds_bpermute_b32 v13, v78, v11
	v_mov_b32_dpp v14, v4 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v15, v5 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp50:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[4:5], v[4:5], v[14:15]
.Ltmp51:
	.loc	1 27 5                          ; rowdot_prefetched.py:27:5
	s_and_b32 s1, s1, 0xffff
.Ltmp52:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	s_waitcnt lgkmcnt(0)
	v_pk_add_f32 v[10:11], v[10:11], v[12:13]
.Ltmp53:
	.loc	1 26 5                          ; rowdot_prefetched.py:26:5
	v_pk_add_f32 v[4:5], v[40:41], v[4:5]
	.loc	1 27 14                         ; rowdot_prefetched.py:27:14
	v_or_b32_e32 v1, s9, v1
.Ltmp54:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_mov_b32_dpp v12, v10 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v11 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp55:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[10:11], v[10:11], v[12:13]
.Ltmp56:
	.loc	1 27 5                          ; rowdot_prefetched.py:27:5
	s_cmp_eq_u32 s4, 0
	s_cselect_b64 vcc, -1, 0
.Ltmp57:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_mov_b32_dpp v12, v10 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v11 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp58:
	.loc	1 27 5                          ; rowdot_prefetched.py:27:5
	s_mov_b32 s3, 0x27000
.Ltmp59:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	v_mov_b32_dpp v12, v12 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v13 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp60:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[10:11], v[10:11], v[12:13]
.Ltmp61:
	.loc	1 27 5                          ; rowdot_prefetched.py:27:5
	s_mov_b32 s2, 0x7ffffffe
.Ltmp62:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	s_nop 0
	v_mov_b32_dpp v12, v10 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v13, v11 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp63:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[10:11], v[10:11], v[12:13]
	v_mov_b32_e32 v12, v6
	v_mov_b32_e32 v13, v8
	v_mov_b32_e32 v8, v7
	v_pk_add_f32 v[8:9], v[12:13], v[8:9]
.Ltmp64:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	ds_bpermute_b32 v12, v78, v8
	ds_bpermute_b32 v13, v78, v9
	v_mov_b32_dpp v6, v10 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v7, v11 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp65:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[6:7], v[10:11], v[6:7]
	s_waitcnt lgkmcnt(0)
	v_pk_add_f32 v[8:9], v[8:9], v[12:13]
.Ltmp66:
	.loc	1 26 5                          ; rowdot_prefetched.py:26:5
	v_pk_add_f32 v[6:7], v[36:37], v[6:7]
.Ltmp67:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	s_nop 0
	v_mov_b32_dpp v10, v8 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v9 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp68:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[8:9], v[8:9], v[10:11]
.Ltmp69:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	s_nop 1
	v_mov_b32_dpp v10, v8 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v9 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	s_nop 0
	v_mov_b32_dpp v10, v10 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v11 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp70:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[8:9], v[8:9], v[10:11]
.Ltmp71:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	s_nop 1
	v_mov_b32_dpp v10, v8 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v9 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp72:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[8:9], v[8:9], v[10:11]
.Ltmp73:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot_prefetched.py:26:12 ]
	s_nop 1
	v_mov_b32_dpp v10, v8 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v11, v9 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp74:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot_prefetched.py:26:12 ] ]
	v_pk_add_f32 v[8:9], v[8:9], v[10:11]
.Ltmp75:
	.loc	1 27 5                          ; rowdot_prefetched.py:27:5
	v_and_b32_e32 v10, 0x70, v77
	v_add_u32_e32 v10, 0, v10
	.loc	1 26 5                          ; rowdot_prefetched.py:26:5
	v_pk_add_f32 v[8:9], v[34:35], v[8:9]
	.loc	1 27 5                          ; rowdot_prefetched.py:27:5
	ds_write_b128 v10, v[2:5]
	ds_write_b128 v10, v[6:9] offset:128
	v_lshrrev_b32_e32 v2, 1, v0
	v_lshlrev_b32_e32 v0, 2, v0
	v_and_b32_e32 v0, 0x80, v0
	v_and_b32_e32 v2, 12, v2
	v_add_u32_e32 v0, 0, v0
	v_add3_u32 v0, v0, v2, v76
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v2, v0
	v_lshlrev_b32_e32 v0, 2, v1
	v_bfrev_b32_e32 v1, 1
	v_cndmask_b32_e32 v0, v1, v0, vcc
	s_waitcnt lgkmcnt(0)
	buffer_store_dword v2, v0, s[0:3], 0 offen
	.loc	1 13 1                          ; rowdot_prefetched.py:13:1
	s_endpgm
.Ltmp76:
.Lfunc_end0:
	.size	rowdot_prefetch_kernel, .Lfunc_end0-rowdot_prefetch_kernel
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel rowdot_prefetch_kernel
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 48
		.amdhsa_user_sgpr_count 14
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 12
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 148
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 148
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
                                        ; -- End function
	.set .Lrowdot_prefetch_kernel.num_vgpr, 148
	.set .Lrowdot_prefetch_kernel.num_agpr, 0
	.set .Lrowdot_prefetch_kernel.numbered_sgpr, 16
	.set .Lrowdot_prefetch_kernel.num_named_barrier, 0
	.set .Lrowdot_prefetch_kernel.private_seg_size, 0
	.set .Lrowdot_prefetch_kernel.uses_vcc, 1
	.set .Lrowdot_prefetch_kernel.uses_flat_scratch, 0
	.set .Lrowdot_prefetch_kernel.has_dyn_sized_stack, 0
	.set .Lrowdot_prefetch_kernel.has_recursion, 0
	.set .Lrowdot_prefetch_kernel.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 4664
; TotalNumSgprs: 22
; NumVgprs: 148
; NumAgprs: 0
; TotalNumVgprs: 148
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 2
; VGPRBlocks: 18
; NumSGPRsForWavesPerEU: 22
; NumVGPRsForWavesPerEU: 148
; AccumOffset: 148
; Occupancy: 3
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 14
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 36
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.section	.debug_abbrev,"",@progbits
	.byte	1                               ; Abbreviation Code
	.byte	17                              ; DW_TAG_compile_unit
	.byte	1                               ; DW_CHILDREN_yes
	.byte	37                              ; DW_AT_producer
	.byte	14                              ; DW_FORM_strp
	.byte	19                              ; DW_AT_language
	.byte	5                               ; DW_FORM_data2
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	16                              ; DW_AT_stmt_list
	.byte	23                              ; DW_FORM_sec_offset
	.byte	27                              ; DW_AT_comp_dir
	.byte	14                              ; DW_FORM_strp
	.ascii	"\341\177"                      ; DW_AT_APPLE_optimized
	.byte	25                              ; DW_FORM_flag_present
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	2                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	0                               ; DW_CHILDREN_no
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	32                              ; DW_AT_inline
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	3                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	1                               ; DW_CHILDREN_yes
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	4                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	1                               ; DW_CHILDREN_yes
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	85                              ; DW_AT_ranges
	.byte	23                              ; DW_FORM_sec_offset
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	11                              ; DW_FORM_data1
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	5                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	0                               ; DW_CHILDREN_no
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	85                              ; DW_AT_ranges
	.byte	23                              ; DW_FORM_sec_offset
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	5                               ; DW_FORM_data2
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	0                               ; EOM(3)
	.section	.debug_info,"",@progbits
.Lcu_begin0:
	.long	.Ldebug_info_end0-.Ldebug_info_start0 ; Length of Unit
.Ldebug_info_start0:
	.short	4                               ; DWARF version number
	.long	.debug_abbrev                   ; Offset Into Abbrev. Section
	.byte	8                               ; Address Size (in bytes)
	.byte	1                               ; Abbrev [1] 0xb:0x6c DW_TAG_compile_unit
	.long	.Linfo_string0                  ; DW_AT_producer
	.short	2                               ; DW_AT_language
	.long	.Linfo_string1                  ; DW_AT_name
	.long	.Lline_table_start0             ; DW_AT_stmt_list
	.long	.Linfo_string2                  ; DW_AT_comp_dir
                                        ; DW_AT_APPLE_optimized
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.byte	2                               ; Abbrev [2] 0x2a:0x6 DW_TAG_subprogram
	.long	.Linfo_string3                  ; DW_AT_name
	.byte	1                               ; DW_AT_inline
	.byte	3                               ; Abbrev [3] 0x30:0x46 DW_TAG_subprogram
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.long	42                              ; DW_AT_abstract_origin
	.byte	4                               ; Abbrev [4] 0x41:0x1a DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges0                 ; DW_AT_ranges
	.byte	1                               ; DW_AT_call_file
	.byte	26                              ; DW_AT_call_line
	.byte	12                              ; DW_AT_call_column
	.byte	5                               ; Abbrev [5] 0x4d:0xd DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges1                 ; DW_AT_ranges
	.byte	2                               ; DW_AT_call_file
	.short	314                             ; DW_AT_call_line
	.byte	12                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	4                               ; Abbrev [4] 0x5b:0x1a DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges2                 ; DW_AT_ranges
	.byte	1                               ; DW_AT_call_file
	.byte	23                              ; DW_AT_call_line
	.byte	16                              ; DW_AT_call_column
	.byte	5                               ; Abbrev [5] 0x67:0xd DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges3                 ; DW_AT_ranges
	.byte	2                               ; DW_AT_call_file
	.short	314                             ; DW_AT_call_line
	.byte	12                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
.Ldebug_info_end0:
	.section	.debug_ranges,"",@progbits
.Ldebug_ranges0:
	.quad	.Ltmp2-.Lfunc_begin0
	.quad	.Ltmp3-.Lfunc_begin0
	.quad	.Ltmp20-.Lfunc_begin0
	.quad	.Ltmp21-.Lfunc_begin0
	.quad	.Ltmp22-.Lfunc_begin0
	.quad	.Ltmp23-.Lfunc_begin0
	.quad	.Ltmp24-.Lfunc_begin0
	.quad	.Ltmp27-.Lfunc_begin0
	.quad	.Ltmp28-.Lfunc_begin0
	.quad	.Ltmp42-.Lfunc_begin0
	.quad	.Ltmp43-.Lfunc_begin0
	.quad	.Ltmp44-.Lfunc_begin0
	.quad	.Ltmp45-.Lfunc_begin0
	.quad	.Ltmp51-.Lfunc_begin0
	.quad	.Ltmp52-.Lfunc_begin0
	.quad	.Ltmp53-.Lfunc_begin0
	.quad	.Ltmp54-.Lfunc_begin0
	.quad	.Ltmp56-.Lfunc_begin0
	.quad	.Ltmp57-.Lfunc_begin0
	.quad	.Ltmp58-.Lfunc_begin0
	.quad	.Ltmp59-.Lfunc_begin0
	.quad	.Ltmp61-.Lfunc_begin0
	.quad	.Ltmp62-.Lfunc_begin0
	.quad	.Ltmp66-.Lfunc_begin0
	.quad	.Ltmp67-.Lfunc_begin0
	.quad	.Ltmp75-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges1:
	.quad	.Ltmp25-.Lfunc_begin0
	.quad	.Ltmp26-.Lfunc_begin0
	.quad	.Ltmp29-.Lfunc_begin0
	.quad	.Ltmp30-.Lfunc_begin0
	.quad	.Ltmp31-.Lfunc_begin0
	.quad	.Ltmp32-.Lfunc_begin0
	.quad	.Ltmp33-.Lfunc_begin0
	.quad	.Ltmp34-.Lfunc_begin0
	.quad	.Ltmp35-.Lfunc_begin0
	.quad	.Ltmp36-.Lfunc_begin0
	.quad	.Ltmp37-.Lfunc_begin0
	.quad	.Ltmp38-.Lfunc_begin0
	.quad	.Ltmp39-.Lfunc_begin0
	.quad	.Ltmp40-.Lfunc_begin0
	.quad	.Ltmp41-.Lfunc_begin0
	.quad	.Ltmp42-.Lfunc_begin0
	.quad	.Ltmp46-.Lfunc_begin0
	.quad	.Ltmp47-.Lfunc_begin0
	.quad	.Ltmp48-.Lfunc_begin0
	.quad	.Ltmp49-.Lfunc_begin0
	.quad	.Ltmp50-.Lfunc_begin0
	.quad	.Ltmp51-.Lfunc_begin0
	.quad	.Ltmp52-.Lfunc_begin0
	.quad	.Ltmp53-.Lfunc_begin0
	.quad	.Ltmp55-.Lfunc_begin0
	.quad	.Ltmp56-.Lfunc_begin0
	.quad	.Ltmp60-.Lfunc_begin0
	.quad	.Ltmp61-.Lfunc_begin0
	.quad	.Ltmp63-.Lfunc_begin0
	.quad	.Ltmp64-.Lfunc_begin0
	.quad	.Ltmp65-.Lfunc_begin0
	.quad	.Ltmp66-.Lfunc_begin0
	.quad	.Ltmp68-.Lfunc_begin0
	.quad	.Ltmp69-.Lfunc_begin0
	.quad	.Ltmp70-.Lfunc_begin0
	.quad	.Ltmp71-.Lfunc_begin0
	.quad	.Ltmp72-.Lfunc_begin0
	.quad	.Ltmp73-.Lfunc_begin0
	.quad	.Ltmp74-.Lfunc_begin0
	.quad	.Ltmp75-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges2:
	.quad	.Ltmp4-.Lfunc_begin0
	.quad	.Ltmp17-.Lfunc_begin0
	.quad	.Ltmp18-.Lfunc_begin0
	.quad	.Ltmp19-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges3:
	.quad	.Ltmp5-.Lfunc_begin0
	.quad	.Ltmp6-.Lfunc_begin0
	.quad	.Ltmp7-.Lfunc_begin0
	.quad	.Ltmp8-.Lfunc_begin0
	.quad	.Ltmp9-.Lfunc_begin0
	.quad	.Ltmp10-.Lfunc_begin0
	.quad	.Ltmp11-.Lfunc_begin0
	.quad	.Ltmp12-.Lfunc_begin0
	.quad	.Ltmp13-.Lfunc_begin0
	.quad	.Ltmp14-.Lfunc_begin0
	.quad	.Ltmp15-.Lfunc_begin0
	.quad	.Ltmp16-.Lfunc_begin0
	.quad	.Ltmp18-.Lfunc_begin0
	.quad	.Ltmp19-.Lfunc_begin0
	.quad	0
	.quad	0
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"triton"                        ; string offset=0 ; triton
.Linfo_string1:
	.asciz	"rowdot_prefetched.py"          ; string offset=7 ; rowdot_prefetched.py
.Linfo_string2:
	.asciz	"/work/verdicts/tests/data/triton_occupancy" ; string offset=28 ; /work/verdicts/tests/data/triton_occupancy
.Linfo_string3:
	.asciz	"rowdot_prefetch_kernel"        ; string offset=71 ; rowdot_prefetch_kernel
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .offset:         24
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .offset:         32
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         40
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 48
    .max_flat_workgroup_size: 256
    .name:           rowdot_prefetch_kernel
    .private_segment_fixed_size: 0
    .sgpr_count:     22
    .sgpr_spill_count: 0
    .symbol:         rowdot_prefetch_kernel.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     148
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgpu9.42-amd-amdhsa-unknown-gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
	.section	.debug_line,"",@progbits
.Lline_table_start0:
